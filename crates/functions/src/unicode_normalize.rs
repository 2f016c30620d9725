//! `normalizeUTF8NFC`, `normalizeUTF8NFD`, `normalizeUTF8NFKC`, `normalizeUTF8NFKD`: the
//! Unicode normalization forms, as ClickHouse computes them with ICU (here ICU4X's
//! normalizer, the same Unicode data).

use datafusion::logical_expr::ScalarUDF;
use icu_normalizer::{ComposingNormalizerBorrowed, DecomposingNormalizerBorrowed};

use crate::string_extra::{plain_string_only, string_map_checked};
use crate::text::ByteStrings;

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        string_map_checked("normalizeUTF8NFC", plain_string_only, |s, out| normalized(s, out, |t| ComposingNormalizerBorrowed::new_nfc().normalize(t).into_owned())),
        string_map_checked("normalizeUTF8NFD", plain_string_only, |s, out| normalized(s, out, |t| DecomposingNormalizerBorrowed::new_nfd().normalize(t).into_owned())),
        string_map_checked("normalizeUTF8NFKC", plain_string_only, |s, out| normalized(s, out, |t| ComposingNormalizerBorrowed::new_nfkc().normalize(t).into_owned())),
        string_map_checked("normalizeUTF8NFKD", plain_string_only, |s, out| normalized(s, out, |t| DecomposingNormalizerBorrowed::new_nfkd().normalize(t).into_owned())),
    ]
}

fn normalized(text: &[u8], out: &mut ByteStrings, form: fn(&str) -> String) {
    // Strings are valid UTF-8 here (see `crate::text`).
    out.extend(form(&String::from_utf8_lossy(text)).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_as_clickhouse() {
        assert_eq!(ComposingNormalizerBorrowed::new_nfc().normalize("e\u{301}"), "\u{e9}");
        assert_eq!(DecomposingNormalizerBorrowed::new_nfd().normalize("\u{e9}").len(), 3);
        assert_eq!(ComposingNormalizerBorrowed::new_nfkc().normalize("\u{fb01}\u{2460}"), "fi1");
    }
}
