//! What an address of this process is: `addressToSymbol`, `addressToLine`,
//! `addressToLineWithInlines`, `demangle`.
//!
//! Addresses are resolved in the running process (as ClickHouse does): trace_log
//! addresses from before a restart mean nothing to a new process (ASLR), which is why
//! `system.trace_log` is kept in memory only. Names come from the binary's symbol table,
//! files and lines from its line tables (`debug = "line-tables-only"` in every profile).

use std::ffi::c_void;

/// The raw (mangled) name of the function containing `address`, or "" when the address
/// is not in a known function. Addresses are taken as trace_log holds them, return
/// addresses: the byte before is looked up (the call instruction).
pub fn address_to_symbol(address: u64) -> String {
    let mut name = String::new();
    // The last frame reported is the function the code belongs to; the ones before it
    // are functions inlined into it.
    backtrace::resolve(address as *mut c_void, |symbol| {
        if let Some(symbol_name) = symbol.name() {
            name = String::from_utf8_lossy(symbol_name.as_bytes()).into_owned();
        }
    });
    name
}

/// `file:line` of `address` (the innermost inlined location), or the path of the
/// binary when there is no line information for it (as ClickHouse answers).
pub fn address_to_line(address: u64) -> String {
    locations(address).into_iter().next().map(|l| l.file_line()).unwrap_or_else(binary_path)
}

/// `addressToLine` first, then `file:line:function` for the code at `address` and each
/// function it was inlined into, outwards.
pub fn address_to_line_with_inlines(address: u64) -> Vec<String> {
    let locations = locations(address);
    if locations.is_empty() {
        return vec![binary_path()];
    }
    let mut lines = vec![locations[0].file_line()];
    for location in &locations {
        lines.push(format!("{}:{}", location.file_line(), demangle(&location.function)));
    }
    lines
}

/// A Rust (legacy or v0) or C++ (Itanium) mangled name made readable; other strings
/// come back unchanged.
pub fn demangle(name: &str) -> String {
    if let Ok(rust) = rustc_demangle::try_demangle(name) {
        return rust.to_string();
    }
    // Only mangled function names: the C++ grammar reads plain words as types ('a' is
    // `signed char`), which ClickHouse's demangler leaves alone.
    if !name.starts_with("_Z") {
        return name.to_string();
    }
    if let Ok(symbol) = cpp_demangle::Symbol::new(name) {
        if let Ok(text) = symbol.demangle(&cpp_demangle::DemangleOptions::default()) {
            // ClickHouse's demangler (LLVM's) closes nested templates as `>>`.
            return text.replace("> >", ">>");
        }
    }
    name.to_string()
}

struct Location {
    file: String,
    line: u32,
    function: String,
}

impl Location {
    fn file_line(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// Innermost first; only the frames with a file.
fn locations(address: u64) -> Vec<Location> {
    let mut found = Vec::new();
    backtrace::resolve(address as *mut c_void, |symbol| {
        if let Some(file) = symbol.filename() {
            found.push(Location {
                file: file.display().to_string(),
                line: symbol.lineno().unwrap_or(0),
                function: symbol.name().map(|n| String::from_utf8_lossy(n.as_bytes()).into_owned()).unwrap_or_default(),
            });
        }
    });
    found
}

fn binary_path() -> String {
    std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn a_function_to_find() -> u64 {
        a_function_to_find as *const () as u64
    }

    #[test]
    fn resolves_this_process() {
        // Addresses are looked up as return addresses (one byte back): one inside the function.
        let address = a_function_to_find() + 1;
        let symbol = address_to_symbol(address);
        assert!(demangle(&symbol).contains("a_function_to_find"), "{symbol}");
        let line = address_to_line(address);
        assert!(line.contains("symbols.rs:"), "{line}");
        assert_eq!(address_to_line_with_inlines(address)[0], line);
        assert_eq!(address_to_symbol(1), "");
    }

    #[test]
    fn demangles_as_clickhouse() {
        assert_eq!(demangle("_ZN4core3ptr13drop_in_place17h1234567890abcdefE"), "core::ptr::drop_in_place::h1234567890abcdef");
        assert_eq!(demangle("_ZNSt6vectorIiSaIiEE9push_backERKi"), "std::vector<int, std::allocator<int>>::push_back(int const&)");
        assert_eq!(demangle("abc"), "abc");
        assert_eq!(demangle("a"), "a");
        assert_eq!(demangle(""), "");
    }
}
