//! `s3()`, `gcs()`, `s3Cluster()` and `url()`.
//!
//! `s3(url [, NOSIGN | access_key_id, secret_access_key [, session_token]] [, format [, structure [, compression]]])`
//! has ClickHouse's positional overloads: whether the second argument is a key or a
//! format is decided the way ClickHouse does it, by whether it names a format.
//! `gcs()` is `s3()` (Google Cloud Storage through its S3 interoperability, HMAC keys);
//! `s3Cluster(cluster, ...)` on one node reads like `s3()`.

use std::sync::Arc;

use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Expr;
use granary_common::{Error, ErrorCode, Result};

use crate::detect::Compression;
use crate::function::{format_args, io_context, table_over, FormatArgs, Source};
use crate::glob::{has_glob, Glob};
use crate::remote::{default_credentials, list_objects, run_blocking_io, s3_store, url_store, ClientKnobs, Credentials, RemoteKind, S3Location};
use crate::table::{FileEntry, RemoteObject};
use crate::named_collections::CollectionKeys;
use crate::IoContext;

/// The table functions of this module by name.
pub fn functions() -> Vec<(&'static str, Arc<dyn TableFunctionImpl>)> {
    vec![
        ("s3", Arc::new(S3Function { name: "s3", cluster: false })),
        ("gcs", Arc::new(S3Function { name: "gcs", cluster: false })),
        ("s3Cluster", Arc::new(S3Function { name: "s3Cluster", cluster: true })),
        ("url", Arc::new(UrlFunction)),
    ]
}

/// One argument as written: a string literal, or a bare word (`NOSIGN`, a cluster name).
#[derive(Debug, Clone, PartialEq)]
enum Arg {
    Text(String),
    Word(String),
}

fn argument(function: &str, expr: &Expr) -> Result<Arg> {
    match expr {
        Expr::Literal(ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)) | ScalarValue::Utf8View(Some(s)), _) => Ok(Arg::Text(s.clone())),
        Expr::Cast(c) => argument(function, &c.expr),
        Expr::Column(c) if c.relation.is_none() => Ok(Arg::Word(c.name.clone())),
        other => Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Table function '{function}' expects string literal arguments, got {other}"))),
    }
}

fn is_format(text: &str) -> bool {
    text.eq_ignore_ascii_case("auto") || granary_formats::input_format_names().contains(&text)
}

/// The parsed arguments of `s3()` after the URL.
#[derive(Debug, PartialEq)]
struct S3Args {
    /// `None`: from the config or the environment.
    credentials: Option<Credentials>,
    format: Vec<String>,
}

/// Splits the arguments after the URL into credentials and format arguments, as
/// ClickHouse's `StorageS3Configuration::fromAST` does.
fn split_s3_args(function: &str, rest: &[Arg]) -> Result<S3Args> {
    let text = |arg: &Arg| match arg {
        Arg::Text(s) => Ok(s.clone()),
        Arg::Word(w) => Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Table function '{function}': unexpected identifier {w}; arguments are string literals"))),
    };
    let nosign = matches!(rest.first(), Some(Arg::Word(w)) if w.eq_ignore_ascii_case("nosign"));
    if nosign {
        let format = rest[1..].iter().map(text).collect::<Result<Vec<_>>>()?;
        return Ok(S3Args { credentials: Some(Credentials::Anonymous), format });
    }
    let values = rest.iter().map(text).collect::<Result<Vec<_>>>()?;
    let keys = |with_token: bool, format_from: usize| S3Args {
        credentials: Some(Credentials::Keys {
            access_key_id: values[0].clone(),
            secret_access_key: values[1].clone(),
            session_token: with_token.then(|| values[2].clone()).filter(|t| !t.is_empty()),
        }),
        format: values[format_from..].to_vec(),
    };
    let only_format = || S3Args { credentials: None, format: values.clone() };
    Ok(match values.len() {
        0 | 1 => only_format(),
        // (format, structure) or (key, secret)
        2 => {
            if is_format(&values[0]) {
                only_format()
            } else {
                keys(false, 2)
            }
        }
        // (format, structure, compression), (key, secret, format) or (key, secret, token)
        3 => {
            if is_format(&values[0]) {
                only_format()
            } else if is_format(&values[2]) {
                keys(false, 2)
            } else {
                keys(true, 3)
            }
        }
        // (key, secret, format, structure) or (key, secret, token, format)
        4 => {
            if is_format(&values[2]) {
                keys(false, 2)
            } else {
                keys(true, 3)
            }
        }
        // (key, secret, format, structure, compression) or (key, secret, token, format, structure)
        5 => {
            if is_format(&values[2]) {
                keys(false, 2)
            } else {
                keys(true, 3)
            }
        }
        6 => keys(true, 3),
        _ => {
            return Err(Error::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Table function '{function}' requires 1 to 7 arguments: url [, NOSIGN | access_key_id, secret_access_key [, session_token]] [, format [, structure [, compression_method]]]"),
            ))
        }
    })
}

fn literal(text: &str) -> Expr {
    Expr::Literal(ScalarValue::Utf8(Some(text.to_string())), None)
}

fn format_arguments(function: &str, values: &[String]) -> Result<FormatArgs> {
    let exprs: Vec<Expr> = values.iter().map(|v| literal(v)).collect();
    format_args(function, &exprs)
}

#[derive(Debug)]
pub(crate) struct S3Function {
    name: &'static str,
    /// `s3Cluster(cluster, ...)`: the cluster name comes first.
    cluster: bool,
}

impl TableFunctionImpl for S3Function {
    fn call_with_args(&self, args: TableFunctionArgs) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let ctx = io_context(&args);
        Ok(self.table(&ctx, args.exprs())?)
    }
}

/// An `s3()` call's arguments, resolved: where, with which client, in which format.
pub(crate) struct ResolvedS3 {
    pub location: S3Location,
    pub remote: Arc<crate::remote::RemoteStore>,
    pub args: FormatArgs,
    pub partition: crate::sink::PartitionOptions,
}

impl S3Function {
    /// The `s3()`-family function called `name`, if it is one.
    pub(crate) fn named(name: &str) -> Option<S3Function> {
        Some(match name {
            "s3" => S3Function { name: "s3", cluster: false },
            "gcs" => S3Function { name: "gcs", cluster: false },
            "s3Cluster" => S3Function { name: "s3Cluster", cluster: true },
            _ => return None,
        })
    }

    pub(crate) fn resolve(&self, ctx: &IoContext, exprs: &[Expr]) -> Result<ResolvedS3> {
        let (positional, mut named) = crate::function::split_named_arguments(exprs);
        let exprs = positional.as_slice();
        let exprs = if self.cluster {
            match exprs.split_first() {
                Some((cluster, rest)) => {
                    argument(self.name, cluster)?;
                    rest
                }
                None => &[],
            }
        } else {
            exprs
        };
        let Some((url_expr, rest)) = exprs.split_first() else {
            return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Table function '{}' requires at least 1 argument: url", self.name)));
        };
        let url = match argument(self.name, url_expr)? {
            Arg::Text(url) => url,
            // A bare name first: a named collection, with `key = value` overrides.
            Arg::Word(collection) => return self.resolve_collection(ctx, &collection, rest, &named),
        };
        let partition = crate::sink::PartitionOptions::take_from(&mut named)?;
        crate::function::no_named_arguments(self.name, &named)?;
        let rest: Vec<Arg> = rest.iter().map(|e| argument(self.name, e)).collect::<Result<_>>()?;
        let parsed = split_s3_args(self.name, &rest)?;
        let args = format_arguments(self.name, &parsed.format)?;
        self.connect(ctx, &url, parsed.credentials, None, args, partition)
    }

    fn resolve_collection(&self, ctx: &IoContext, collection: &str, positional: &[Expr], overrides: &[(String, String)]) -> Result<ResolvedS3> {
        let values = collection_values(ctx, self.name, collection, positional, overrides, &S3_COLLECTION_KEYS)?;
        let url = collection_url(&values);
        let credentials = if values.get("no_sign_request").is_some_and(|v| is_true(v)) {
            Some(Credentials::Anonymous)
        } else {
            match (values.get("access_key_id"), values.get("secret_access_key")) {
                (Some(id), Some(secret)) => Some(Credentials::Keys {
                    access_key_id: id.clone(),
                    secret_access_key: secret.clone(),
                    session_token: values.get("session_token").filter(|t| !t.is_empty()).cloned(),
                }),
                _ => None,
            }
        };
        let args = collection_format_args(&values)?;
        let mut partition_values: Vec<(String, String)> =
            values.iter().filter(|(k, _)| k.starts_with("partition_")).map(|(k, v)| (k.clone(), v.clone())).collect();
        let partition = crate::sink::PartitionOptions::take_from(&mut partition_values)?;
        self.connect(ctx, &url, credentials, values.get("region").cloned(), args, partition)
    }

    /// The client for `url` with `credentials` (`None`: the config's or the environment's).
    fn connect(&self, ctx: &IoContext, url: &str, credentials: Option<Credentials>, region: Option<String>, args: FormatArgs, partition: crate::sink::PartitionOptions) -> Result<ResolvedS3> {
        let location = S3Location::parse(url)?;
        let (credentials, config_region) = match credentials {
            Some(c) => (c, None),
            None => default_credentials(url, &ctx.s3_endpoints),
        };
        let knobs = ClientKnobs::from_settings(&ctx.settings, RemoteKind::S3);
        let remote = s3_store(&location, &credentials, region.or(config_region).as_deref(), &knobs)?;
        Ok(ResolvedS3 { location, remote, args, partition })
    }

    fn table(&self, ctx: &IoContext, exprs: &[Expr]) -> Result<Arc<dyn TableProvider>> {
        let ResolvedS3 { location, remote, args, partition } = self.resolve(ctx, exprs)?;
        partition.check_for_read()?;
        let ignore_missing = ctx.settings.get_bool("s3_ignore_file_doesnt_exist");
        let files = run_blocking_io(|| tokio::runtime::Handle::current().block_on(list_objects(&remote, &location.key, ignore_missing)))?;
        let pattern = location.display(&location.key);
        if files.is_empty() && has_glob(&location.key) && ctx.settings.get_bool("s3_throw_on_zero_files_match") {
            return Err(Error::new(ErrorCode::FILE_DOESNT_EXIST, format!("Can not match any files with path {pattern}")));
        }
        table_over(ctx, Source::S3, files, &pattern, &args)
    }
}

/// `url(url [, format [, structure [, compression]]])`: `{a,b}` and `{1..3}` in the URL
/// stand for several URLs, read as one table.
#[derive(Debug)]
pub(crate) struct UrlFunction;

impl TableFunctionImpl for UrlFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let ctx = io_context(&args);
        Ok(url_table(&ctx, args.exprs())?)
    }
}

/// URLs one url() call may expand to.
const MAX_URLS: usize = 1000;

/// `url(url [, format [, structure [, compression]]])` or `url(collection, key = value, ...)`:
/// the URL and the format arguments.
pub(crate) fn url_arguments(ctx: &IoContext, exprs: &[Expr]) -> Result<(String, FormatArgs)> {
    let (positional, named) = crate::function::split_named_arguments(exprs);
    let Some((url_expr, rest)) = positional.split_first() else {
        return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Table function 'url' requires 1 to 4 arguments: url, [format, [structure, [compression]]]"));
    };
    match argument("url", url_expr)? {
        Arg::Text(url) => {
            crate::function::no_named_arguments("url", &named)?;
            Ok((url, format_args("url", rest)?))
        }
        Arg::Word(collection) => {
            let values = collection_values(ctx, "url", &collection, rest, &named, &URL_COLLECTION_KEYS)?;
            Ok((collection_url(&values), collection_format_args(&values)?))
        }
    }
}

/// The keys s3() takes from a named collection (a subset of ClickHouse's).
const S3_COLLECTION_KEYS: CollectionKeys = CollectionKeys {
    required: &["url"],
    optional: &[
        "access_key_id",
        "secret_access_key",
        "session_token",
        "no_sign_request",
        "region",
        "filename",
        "format",
        "structure",
        "compression_method",
        "compression",
        "partition_strategy",
        "partition_columns_in_data_file",
    ],
};

/// The keys url() takes from a named collection.
const URL_COLLECTION_KEYS: CollectionKeys =
    CollectionKeys { required: &["url"], optional: &["filename", "format", "structure", "compression_method", "compression"] };

/// A collection's values with the call's overrides; the call may add nothing but
/// `key = value` arguments.
pub(crate) fn collection_values(
    ctx: &IoContext,
    function: &str,
    collection: &str,
    positional: &[Expr],
    overrides: &[(String, String)],
    keys: &CollectionKeys,
) -> Result<std::collections::BTreeMap<String, String>> {
    if !positional.is_empty() {
        return Err(Error::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Table function '{function}' with the named collection `{collection}` takes only key = value arguments after it"),
        ));
    }
    if !ctx.may_use_named_collections {
        return Err(Error::new(
            ErrorCode::ACCESS_DENIED,
            format!("Not enough privileges. To execute this query, it's necessary to have the grant NAMED COLLECTION ON {collection}"),
        ));
    }
    crate::named_collections::resolve(&ctx.named_collections, collection, overrides, keys, &ctx.settings)
}

/// `url`, with `filename` appended as a path component when given.
pub(crate) fn collection_url(values: &std::collections::BTreeMap<String, String>) -> String {
    let url = values.get("url").cloned().unwrap_or_default();
    match values.get("filename") {
        Some(name) if url.ends_with('/') => format!("{url}{}", name.trim_start_matches('/')),
        Some(name) => format!("{url}/{}", name.trim_start_matches('/')),
        None => url,
    }
}

pub(crate) fn collection_format_args(values: &std::collections::BTreeMap<String, String>) -> Result<FormatArgs> {
    let auto = |key: &str| values.get(key).filter(|v| !v.eq_ignore_ascii_case("auto")).cloned();
    let compression = match values.get("compression_method").or_else(|| values.get("compression")) {
        Some(c) => Compression::from_argument(c)?,
        None => None,
    };
    Ok(FormatArgs { format: auto("format"), structure: auto("structure"), compression })
}

fn is_true(value: &str) -> bool {
    matches!(value.to_ascii_lowercase().as_str(), "1" | "true")
}

fn url_table(ctx: &IoContext, exprs: &[Expr]) -> Result<Arc<dyn TableProvider>> {
    let (url, args) = url_arguments(ctx, exprs)?;
    let urls = if url.contains('{') {
        match Glob::new(&url)?.expand(MAX_URLS)? {
            Some(urls) => urls,
            None => vec![url.clone()],
        }
    } else {
        vec![url.clone()]
    };
    let knobs = ClientKnobs::from_settings(&ctx.settings, RemoteKind::Url);
    let stores = urls.iter().map(|u| url_store(u, &knobs).map(|s| (u.clone(), s))).collect::<Result<Vec<_>>>()?;
    let files = run_blocking_io(|| {
        tokio::runtime::Handle::current().block_on(async {
            let mut files = Vec::with_capacity(stores.len());
            for (url, remote) in &stores {
                let location = object_store::path::Path::from("");
                let meta = object_store::ObjectStoreExt::head(remote.store.as_ref(), &location)
                    .await
                    .map_err(|e| crate::remote::remote_error(RemoteKind::Url, url, e))?;
                files.push(FileEntry {
                    path: url.clone(),
                    size: meta.size,
                    last_modified: Some(meta.last_modified),
                    // ClickHouse's url() leaves `_etag` empty, whatever the server sends.
                    etag: None,
                    remote: Some(Arc::new(RemoteObject { store: remote.clone(), location })),
                    hive_values: None,
                });
            }
            Ok(files)
        })
    })?;
    // The compression of a URL without an extension is unknown: read it as given.
    let args = FormatArgs { compression: args.compression.or_else(|| (!has_extension(&url)).then_some(Compression::None)), ..args };
    table_over(ctx, Source::Url, files, &url, &args)
}

fn has_extension(url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.rsplit('/').next().is_some_and(|name| name.contains('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(values: &[&str]) -> Vec<Arg> {
        values.iter().map(|v| Arg::Text(v.to_string())).collect()
    }

    fn keys(id: &str, secret: &str, token: Option<&str>) -> Option<Credentials> {
        Some(Credentials::Keys { access_key_id: id.into(), secret_access_key: secret.into(), session_token: token.map(Into::into) })
    }

    #[test]
    fn s3_overloads() {
        let split = |values: &[&str]| split_s3_args("s3", &text(values)).unwrap();
        assert_eq!(split(&[]), S3Args { credentials: None, format: vec![] });
        assert_eq!(split(&["CSV"]), S3Args { credentials: None, format: vec!["CSV".into()] });
        assert_eq!(split(&["CSV", "a UInt8"]), S3Args { credentials: None, format: vec!["CSV".into(), "a UInt8".into()] });
        assert_eq!(split(&["key", "secret"]), S3Args { credentials: keys("key", "secret", None), format: vec![] });
        assert_eq!(split(&["Parquet", "a UInt8", "gzip"]).credentials, None);
        assert_eq!(split(&["key", "secret", "Parquet"]), S3Args { credentials: keys("key", "secret", None), format: vec!["Parquet".into()] });
        assert_eq!(split(&["key", "secret", "token"]), S3Args { credentials: keys("key", "secret", Some("token")), format: vec![] });
        assert_eq!(split(&["key", "secret", "CSV", "a UInt8"]).format, vec!["CSV", "a UInt8"]);
        assert_eq!(split(&["key", "secret", "token", "CSV"]), S3Args { credentials: keys("key", "secret", Some("token")), format: vec!["CSV".into()] });
        assert_eq!(split(&["key", "secret", "auto", "a UInt8", "gzip"]).format, vec!["auto", "a UInt8", "gzip"]);
        assert_eq!(split(&["key", "secret", "token", "CSV", "a UInt8", "gzip"]).format, vec!["CSV", "a UInt8", "gzip"]);
        let nosign = split_s3_args("s3", &[Arg::Word("NOSIGN".into()), Arg::Text("CSV".into())]).unwrap();
        assert_eq!(nosign, S3Args { credentials: Some(Credentials::Anonymous), format: vec!["CSV".into()] });
        assert!(split_s3_args("s3", &text(&["a", "b", "c", "d", "e", "f", "g"])).is_err());
    }

    #[test]
    fn url_extensions() {
        assert!(has_extension("http://h/a/b.csv?x=1"));
        assert!(!has_extension("http://h/export?format=csv"));
    }
}
