//! `CustomSeparated`, `CustomSeparatedWithNames`, `CustomSeparatedWithNamesAndTypes`:
//! rows framed by the `format_custom_*` delimiters (before and after the result, before
//! and after each row, between rows and between fields) with values escaped by
//! `format_custom_escaping_rule`. Header lines are framed like rows and followed by the
//! row separator. No totals, as in ClickHouse.

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::{write_csv_quoted, write_json_string, write_quoted, write_tsv_escaped, write_xml_escaped};
use granary_types::text::{TextOptions, TextStyle};

use super::{column_writers, type_names};
use crate::{CustomSettings, FormatSettings, OutputFormat, QueryStatistics};

/// `format_custom_escaping_rule` and its kin (`format_template_*`, `format_regexp_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EscapingRule {
    Escaped,
    Quoted,
    Csv,
    Json,
    Xml,
    Raw,
    /// Only for input, where the field is skipped.
    None,
}

impl EscapingRule {
    pub fn parse(name: &str) -> Result<EscapingRule> {
        Ok(match name {
            "Escaped" => EscapingRule::Escaped,
            "Quoted" => EscapingRule::Quoted,
            "CSV" => EscapingRule::Csv,
            "JSON" => EscapingRule::Json,
            "XML" => EscapingRule::Xml,
            "Raw" => EscapingRule::Raw,
            "None" => EscapingRule::None,
            other => {
                return Err(Error::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Unexpected value of EscapingRule: '{other}'. Must be one of ['Raw', 'XML', 'JSON', 'None', 'CSV', 'Quoted', 'Escaped']"),
                ))
            }
        })
    }

    /// The value style of this rule (None for `None`, which cannot write values).
    pub fn style(self) -> Option<TextStyle> {
        Some(match self {
            EscapingRule::Escaped => TextStyle::Tsv,
            EscapingRule::Quoted => TextStyle::Quoted,
            EscapingRule::Csv => TextStyle::Csv,
            EscapingRule::Json => TextStyle::Json,
            EscapingRule::Xml => TextStyle::Xml,
            EscapingRule::Raw => TextStyle::Raw,
            EscapingRule::None => return None,
        })
    }

    /// A string (a header name or type) written by this rule.
    fn write_string(self, text: &[u8], options: &TextOptions, out: &mut Vec<u8>) {
        match self {
            EscapingRule::Escaped => write_tsv_escaped(text, out),
            EscapingRule::Quoted => write_quoted(text, out),
            EscapingRule::Csv => write_csv_quoted(text, out),
            EscapingRule::Json => write_json_string(text, options.json_escape_forward_slashes, out),
            EscapingRule::Xml => write_xml_escaped(text, out),
            EscapingRule::Raw | EscapingRule::None => out.extend_from_slice(text),
        }
    }
}

pub struct CustomSeparated {
    schema: SchemaRef,
    rule: EscapingRule,
    style: TextStyle,
    delimiters: CustomSettings,
    names: bool,
    types: bool,
    rows: u64,
    options: TextOptions,
}

impl CustomSeparated {
    pub fn new(schema: SchemaRef, names: bool, types: bool, settings: &FormatSettings) -> Result<Self> {
        let rule = EscapingRule::parse(&settings.custom.escaping_rule)?;
        let style = rule.style().ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, "Cannot serialize string with None escaping rule"))?;
        Ok(CustomSeparated { schema, rule, style, delimiters: settings.custom.clone(), names, types, rows: 0, options: settings.text.clone() })
    }

    fn header_line(&self, values: &[String], out: &mut Vec<u8>) {
        let d = &self.delimiters;
        out.extend_from_slice(d.row_before_delimiter.as_bytes());
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(d.field_delimiter.as_bytes());
            }
            self.rule.write_string(v.as_bytes(), &self.options, out);
        }
        out.extend_from_slice(d.row_after_delimiter.as_bytes());
        out.extend_from_slice(d.row_between_delimiter.as_bytes());
    }
}

impl OutputFormat for CustomSeparated {
    fn content_type(&self) -> &'static str {
        "text/plain; charset=UTF-8"
    }

    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(self.delimiters.result_before_delimiter.as_bytes());
        if self.names {
            let names: Vec<String> = self.schema.fields().iter().map(|f| f.name().clone()).collect();
            self.header_line(&names, out);
        }
        if self.types {
            self.header_line(&type_names(&self.schema), out);
        }
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        let columns = column_writers(&self.schema, batch, self.style, &self.options)?;
        let d = &self.delimiters;
        for row in 0..batch.num_rows() {
            if self.rows > 0 {
                out.extend_from_slice(d.row_between_delimiter.as_bytes());
            }
            self.rows += 1;
            out.extend_from_slice(d.row_before_delimiter.as_bytes());
            for (i, w) in columns.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(d.field_delimiter.as_bytes());
                }
                w.write(row, out);
            }
            out.extend_from_slice(d.row_after_delimiter.as_bytes());
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(self.delimiters.result_after_delimiter.as_bytes());
        Ok(())
    }
}
