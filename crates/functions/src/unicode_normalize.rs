//! `normalizeUTF8NFC`, `normalizeUTF8NFD`, `normalizeUTF8NFKC`, `normalizeUTF8NFKD`: the
//! Unicode normalization forms, as ClickHouse computes them with ICU (here ICU4X's
//! normalizer, the same Unicode data).

use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;
use icu_normalizer::{ComposingNormalizerBorrowed, DecomposingNormalizerBorrowed};

use crate::args::{ch_error, Arity};
use crate::func::ScalarDef;
use crate::string::text_bytes;
use crate::text::ByteStrings;

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        normalize_function("normalizeUTF8NFC", |s| ComposingNormalizerBorrowed::new_nfc().normalize(s).into_owned()),
        normalize_function("normalizeUTF8NFD", |s| DecomposingNormalizerBorrowed::new_nfd().normalize(s).into_owned()),
        normalize_function("normalizeUTF8NFKC", |s| ComposingNormalizerBorrowed::new_nfkc().normalize(s).into_owned()),
        normalize_function("normalizeUTF8NFKD", |s| DecomposingNormalizerBorrowed::new_nfkd().normalize(s).into_owned()),
    ]
}

fn normalize_function(name: &'static str, form: fn(&str) -> String) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            if !crate::string::is_plain_string(&ctx.ch(0)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument of function {}", ctx.ch(0), ctx.name)));
            }
            Ok(ChType::String)
        },
        move |ctx| {
            let texts = text_bytes(&ctx.array(0)?);
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                // Strings are valid UTF-8 here (see `crate::text`).
                let text = String::from_utf8_lossy(texts.value(row));
                out.push_value(form(&text).as_bytes())?;
            }
            out.finish(None)
        },
    )
    .build()
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
