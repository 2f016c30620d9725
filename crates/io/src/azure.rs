//! `azureBlobStorage(...)` and `azureBlobStorageCluster(cluster, ...)` (one node: read as
//! `azureBlobStorage`), on object_store's Azure client.
//!
//! ClickHouse's arguments:
//!
//! ```text
//! azureBlobStorage(connection_string | storage_account_url, container, blobpath
//!                  [, account_name, account_key] [, format [, compression [, structure]]])
//! azureBlobStorage(named_collection, key = value, ...)
//! ```
//!
//! Whether the fourth argument is an account name or a format is decided as ClickHouse
//! does, by whether it names a format. A connection string gives the endpoint
//! (`BlobEndpoint`, or `DefaultEndpointsProtocol` + `AccountName` + `EndpointSuffix`),
//! the account and its key (`AccountKey`) or a SAS (`SharedAccessSignature`);
//! `UseDevelopmentStorage=true` is Azurite's well-known account. A storage account URL
//! takes the account from its host (`acct.blob.core.windows.net`) or its first path
//! segment (Azurite's `http://host:port/acct`), a SAS from its query, else the key
//! arguments, else requests go unsigned. Globs list blobs as s3() lists keys; `_path` is
//! `container/blob`.
//!
//! `INSERT INTO FUNCTION azureBlobStorage(...)` creates the container first when it does
//! not exist, as ClickHouse does for a writing client (`getContainerClient`): a Get
//! Container Properties request, and on 404 a Create Container request (409, created
//! meanwhile, is fine). object_store has no call for containers, so both are sent here,
//! signed with the account key (SharedKey) or carrying the SAS.

use std::sync::Arc;

use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::logical_expr::Expr;
use granary_common::{Error, ErrorCode, Result};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::ObjectStore;

use crate::function::{format_args, io_context, string_arg, table_over, FormatArgs, Source};
use crate::glob::has_glob;
use crate::named_collections::CollectionKeys;
use crate::remote::{list_objects, run_blocking_io, ClientKnobs, RemoteKind, RemoteStore};
use crate::remote_functions::{collection_format_args, collection_values};
use crate::sink::PartitionOptions;
use crate::IoContext;

/// Azurite's development account (`UseDevelopmentStorage=true`).
const DEVELOPMENT_ACCOUNT: &str = "devstoreaccount1";
const DEVELOPMENT_KEY: &str = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const DEVELOPMENT_ENDPOINT: &str = "http://127.0.0.1:10000/devstoreaccount1";

/// How requests to the account are signed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Auth {
    Key(String),
    /// A shared access signature (the query string, without `?`).
    Sas(String),
    Anonymous,
}

/// Where an account's blob service is and how to sign for it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Account {
    /// The blob endpoint, without a trailing `/` (`https://acct.blob.core.windows.net`,
    /// `http://127.0.0.1:10000/devstoreaccount1`).
    endpoint: String,
    name: String,
    auth: Auth,
}

fn bad(message: String) -> Error {
    Error::new(ErrorCode::BAD_ARGUMENTS, message)
}

/// `Key=Value;...` as Azure's SDKs read it.
fn parse_connection_string(text: &str) -> Result<Account> {
    let mut fields = std::collections::HashMap::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=').ok_or_else(|| bad(format!("Bad Azure connection string: '{part}' is not Key=Value")))?;
        fields.insert(key.trim().to_ascii_lowercase(), value.trim().to_string());
    }
    if fields.get("usedevelopmentstorage").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        return Ok(Account { endpoint: DEVELOPMENT_ENDPOINT.into(), name: DEVELOPMENT_ACCOUNT.into(), auth: Auth::Key(DEVELOPMENT_KEY.into()) });
    }
    let name = fields.get("accountname").cloned();
    let endpoint = match (fields.get("blobendpoint"), &name) {
        (Some(endpoint), _) => endpoint.trim_end_matches('/').to_string(),
        (None, Some(account)) => {
            let protocol = fields.get("defaultendpointsprotocol").map(String::as_str).unwrap_or("https");
            let suffix = fields.get("endpointsuffix").map(String::as_str).unwrap_or("core.windows.net");
            format!("{protocol}://{account}.blob.{suffix}")
        }
        (None, None) => return Err(bad("Bad Azure connection string: it names neither AccountName nor BlobEndpoint".into())),
    };
    let name = match name {
        Some(name) => name,
        None => account_from_url(&endpoint).ok_or_else(|| bad(format!("Bad Azure connection string: no AccountName and none in {endpoint}")))?,
    };
    let auth = match (fields.get("accountkey"), fields.get("sharedaccesssignature")) {
        (Some(key), _) => Auth::Key(key.clone()),
        (None, Some(sas)) => Auth::Sas(sas.trim_start_matches('?').to_string()),
        (None, None) => Auth::Anonymous,
    };
    Ok(Account { endpoint, name, auth })
}

/// The account of an endpoint: `acct` of `acct.blob.core.windows.net`, else the first
/// path segment (Azurite's path-style `http://host:port/acct`).
fn account_from_url(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let host = parsed.host_str()?;
    if let Some((account, _)) = host.split_once(".blob.") {
        return Some(account.to_string());
    }
    parsed.path_segments()?.find(|s| !s.is_empty()).map(str::to_string)
}

fn account_from_storage_url(url: &str, name: Option<String>, key: Option<String>) -> Result<Account> {
    let (endpoint, sas) = match url.split_once('?') {
        Some((endpoint, query)) => (endpoint, Some(query.to_string())),
        None => (url, None),
    };
    url::Url::parse(endpoint).map_err(|e| bad(format!("Bad Azure storage account URL '{endpoint}': {e}")))?;
    let endpoint = endpoint.trim_end_matches('/').to_string();
    let name = match name.or_else(|| account_from_url(&endpoint)) {
        Some(name) => name,
        None => return Err(bad(format!("Cannot tell the Azure account of {endpoint}: give account_name"))),
    };
    let auth = match (key, sas) {
        (Some(key), _) => Auth::Key(key),
        (None, Some(sas)) => Auth::Sas(sas),
        (None, None) => Auth::Anonymous,
    };
    Ok(Account { endpoint, name, auth })
}

/// `connection_string | storage_account_url`: a URL is a storage account URL.
fn account_of(location: &str, name: Option<String>, key: Option<String>) -> Result<Account> {
    let looks_like_url = location.contains("://") && !location.contains(';');
    if looks_like_url {
        account_from_storage_url(location, name, key)
    } else {
        parse_connection_string(location)
    }
}

/// The client for one container.
fn azure_store(account: &Account, container: &str, knobs: &ClientKnobs) -> Result<Arc<RemoteStore>> {
    let cache_key = format!("azure|{}|{}|{container}|{:?}|{knobs:?}", account.endpoint, account.name, account.auth);
    crate::remote::cached_store(RemoteKind::Azure, cache_key, format!("{container}/"), || {
        let mut builder = MicrosoftAzureBuilder::new()
            .with_account(&account.name)
            .with_container_name(container)
            .with_endpoint(account.endpoint.clone())
            .with_allow_http(true)
            .with_client_options(knobs.client_options())
            .with_retry(knobs.retry_config());
        builder = match &account.auth {
            Auth::Key(key) => builder.with_access_key(key),
            Auth::Sas(sas) => builder.with_config(AzureConfigKey::SasKey, sas),
            Auth::Anonymous => builder.with_skip_signature(true),
        };
        let store = builder.build().map_err(|e| bad(format!("Cannot create an Azure Blob Storage client for container {container}: {e}")))?;
        Ok(Arc::new(store) as Arc<dyn ObjectStore>)
    })
}

/// The table functions of this module by name.
pub fn functions() -> Vec<(&'static str, Arc<dyn TableFunctionImpl>)> {
    vec![
        ("azureBlobStorage", Arc::new(AzureFunction { name: "azureBlobStorage", cluster: false })),
        ("azureBlobStorageCluster", Arc::new(AzureFunction { name: "azureBlobStorageCluster", cluster: true })),
    ]
}

#[derive(Debug)]
pub(crate) struct AzureFunction {
    name: &'static str,
    /// `azureBlobStorageCluster(cluster, ...)`: the cluster name comes first.
    cluster: bool,
}

/// An `azureBlobStorage()` call's arguments, resolved.
pub(crate) struct ResolvedAzure {
    pub remote: Arc<RemoteStore>,
    pub account: Account,
    pub knobs: ClientKnobs,
    pub container: String,
    /// The blob name or glob.
    pub blob_path: String,
    pub args: FormatArgs,
    pub partition: PartitionOptions,
}

/// The keys azureBlobStorage() takes from a named collection.
const COLLECTION_KEYS: CollectionKeys = CollectionKeys {
    required: &["connection_string|storage_account_url", "container", "blob_path"],
    optional: &["account_name", "account_key", "format", "compression", "compression_method", "structure", "partition_strategy", "partition_columns_in_data_file"],
};

fn is_format(text: &str) -> bool {
    text.eq_ignore_ascii_case("auto") || granary_formats::input_format_names().contains(&text)
}

impl AzureFunction {
    pub(crate) fn named(name: &str) -> Option<AzureFunction> {
        Some(match name {
            "azureBlobStorage" => AzureFunction { name: "azureBlobStorage", cluster: false },
            "azureBlobStorageCluster" => AzureFunction { name: "azureBlobStorageCluster", cluster: true },
            _ => return None,
        })
    }

    pub(crate) fn resolve(&self, ctx: &IoContext, exprs: &[Expr]) -> Result<ResolvedAzure> {
        let (positional, mut named) = crate::function::split_named_arguments(exprs);
        let mut positional = positional.as_slice();
        if self.cluster {
            match positional.split_first() {
                Some((_cluster, rest)) => positional = rest,
                None => return Err(self.usage()),
            }
        }
        let Some((first, rest)) = positional.split_first() else { return Err(self.usage()) };
        if let Expr::Column(c) = first {
            if c.relation.is_none() {
                return self.resolve_collection(ctx, &c.name, rest, &named);
            }
        }
        let partition = PartitionOptions::take_from(&mut named)?;
        crate::function::no_named_arguments(self.name, &named)?;
        let values: Vec<String> = positional.iter().map(|e| string_arg(self.name, e)).collect::<Result<_>>()?;
        let (location, container, blob_path) = match values.as_slice() {
            [location, container, blob_path, ..] => (location, container.clone(), blob_path.clone()),
            _ => return Err(self.usage()),
        };
        let extra = &values[3..];
        // (format [, compression [, structure]]) or (account_name, account_key [, format
        // [, compression [, structure]]]): the fourth argument tells which.
        let (account_name, account_key, format_values) = match extra {
            [] => (None, None, extra),
            [first, ..] if is_format(first) && extra.len() <= 3 => (None, None, extra),
            [name, key, rest @ ..] if rest.len() <= 3 => (Some(name.clone()), Some(key.clone()), rest),
            _ => return Err(self.usage()),
        };
        // ClickHouse's order after the format is (compression, structure); the shared
        // parser takes (structure, compression).
        let format_exprs: Vec<Expr> = match format_values {
            [format, compression, structure] => vec![literal(format), literal(structure), literal(compression)],
            [format, compression] => vec![literal(format), literal("auto"), literal(compression)],
            other => other.iter().map(|v| literal(v)).collect(),
        };
        let args = format_args(self.name, &format_exprs)?;
        let account = account_of(location, account_name, account_key)?;
        self.connect(ctx, &account, container, blob_path, args, partition)
    }

    fn resolve_collection(&self, ctx: &IoContext, collection: &str, positional: &[Expr], overrides: &[(String, String)]) -> Result<ResolvedAzure> {
        let values = collection_values(ctx, self.name, collection, positional, overrides, &COLLECTION_KEYS)?;
        let location = values.get("connection_string").or_else(|| values.get("storage_account_url")).cloned().unwrap_or_default();
        let account = account_of(&location, values.get("account_name").cloned(), values.get("account_key").cloned())?;
        let args = collection_format_args(&values)?;
        let mut partition_values: Vec<(String, String)> = values.iter().filter(|(k, _)| k.starts_with("partition_")).map(|(k, v)| (k.clone(), v.clone())).collect();
        let partition = PartitionOptions::take_from(&mut partition_values)?;
        let container = values.get("container").cloned().unwrap_or_default();
        let blob_path = values.get("blob_path").cloned().unwrap_or_default();
        self.connect(ctx, &account, container, blob_path, args, partition)
    }

    fn connect(&self, ctx: &IoContext, account: &Account, container: String, blob_path: String, args: FormatArgs, partition: PartitionOptions) -> Result<ResolvedAzure> {
        if container.is_empty() || container.contains('/') {
            return Err(bad(format!("Table function '{}': bad container name '{container}'", self.name)));
        }
        let knobs = ClientKnobs::from_settings(&ctx.settings, RemoteKind::Azure);
        let remote = azure_store(account, &container, &knobs)?;
        Ok(ResolvedAzure { remote, account: account.clone(), knobs, container, blob_path: blob_path.trim_start_matches('/').to_string(), args, partition })
    }

    fn usage(&self) -> Error {
        Error::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Table function '{}' requires 3 to 8 arguments: connection_string|storage_account_url, container_name, blobpath, [account_name, account_key, format, compression, structure]{}",
                self.name,
                if self.cluster { " after the cluster name" } else { "" }
            ),
        )
    }

    fn table(&self, ctx: &IoContext, exprs: &[Expr]) -> Result<Arc<dyn TableProvider>> {
        let ResolvedAzure { remote, container, blob_path, args, partition, .. } = self.resolve(ctx, exprs)?;
        partition.check_for_read()?;
        let ignore_missing = ctx.settings.get_bool("azure_ignore_file_doesnt_exist");
        let files = run_blocking_io(|| tokio::runtime::Handle::current().block_on(list_objects(&remote, &blob_path, ignore_missing)))?;
        let pattern = format!("{container}/{blob_path}");
        if files.is_empty() && has_glob(&blob_path) && ctx.settings.get_bool("azure_throw_on_zero_files_match") {
            return Err(Error::new(ErrorCode::FILE_DOESNT_EXIST, format!("Can not match any files with path {pattern}")));
        }
        table_over(ctx, Source::Azure, files, &pattern, &args)
    }
}

/// The Blob service REST version of the container requests (the one object_store sends).
const API_VERSION: &str = "2023-11-03";

/// Makes sure `container` exists before blobs are written into it: ClickHouse's writing
/// client checks the container's properties and creates it when they are not found.
pub(crate) fn ensure_container(account: &Account, container: &str, knobs: &ClientKnobs) -> Result<()> {
    run_blocking_io(|| tokio::runtime::Handle::current().block_on(ensure_container_async(account, container, knobs)))
}

async fn ensure_container_async(account: &Account, container: &str, knobs: &ClientKnobs) -> Result<()> {
    let client = reqwest::Client::builder()
        .connect_timeout(knobs.connect_timeout)
        .timeout(knobs.request_timeout)
        .build()
        .map_err(|e| azure_error(format!("Cannot create an HTTP client for Azure container {container}: {e}")))?;
    let exists = container_request(&client, account, container, reqwest::Method::GET).await?;
    match exists.status().as_u16() {
        200..=299 => return Ok(()),
        404 => {}
        _ => return Err(failed_request("check", container, exists).await),
    }
    let created = container_request(&client, account, container, reqwest::Method::PUT).await?;
    match created.status().as_u16() {
        // 409: created meanwhile (or being deleted: then the writes report it).
        200..=299 | 409 => {
            tracing::debug!("Created Azure container {container} at {}", account.endpoint);
            Ok(())
        }
        _ => Err(failed_request("create", container, created).await),
    }
}

/// `GET` (Get Container Properties) or `PUT` (Create Container) of
/// `<endpoint>/<container>?restype=container`, signed as `account.auth` says.
async fn container_request(client: &reqwest::Client, account: &Account, container: &str, method: reqwest::Method) -> Result<reqwest::Response> {
    let mut url = format!("{}/{container}?restype=container", account.endpoint);
    let mut request = client.request(method.clone(), &url);
    match &account.auth {
        Auth::Key(key) => {
            let date = chrono::Utc::now().format("%a, %d %b %Y %H:%M:%S GMT").to_string();
            let path = url::Url::parse(&url).map_err(|e| bad(format!("Bad Azure container URL {url}: {e}")))?.path().to_string();
            let to_sign = shared_key_string_to_sign(method.as_str(), &date, &account.name, &path);
            let signature = sign(key, &to_sign)?;
            request = request
                .header("x-ms-date", date)
                .header("x-ms-version", API_VERSION)
                .header("authorization", format!("SharedKey {}:{signature}", account.name));
        }
        Auth::Sas(sas) => {
            url.push('&');
            url.push_str(sas);
            request = client.request(method.clone(), &url).header("x-ms-version", API_VERSION);
        }
        Auth::Anonymous => request = request.header("x-ms-version", API_VERSION),
    }
    if method == reqwest::Method::PUT {
        request = request.header("content-length", "0");
    }
    request.send().await.map_err(|e| azure_error(format!("Cannot reach Azure container {container} at {}: {e}", account.endpoint)))
}

/// The string a SharedKey signature of a body-less container request covers: the verb,
/// eleven empty standard headers, the `x-ms-*` headers sorted, then the account, path
/// and query (Blob service versions since 2015-02-21).
fn shared_key_string_to_sign(verb: &str, date: &str, account: &str, path: &str) -> String {
    format!("{verb}\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:{date}\nx-ms-version:{API_VERSION}\n/{account}{path}\nrestype:container")
}

/// Base64 of the HMAC-SHA256 of `text` under the (base64) account key.
fn sign(key: &str, text: &str) -> Result<String> {
    use base64::Engine;
    let engine = base64::engine::general_purpose::STANDARD;
    let key = engine.decode(key.trim()).map_err(|e| bad(format!("Bad Azure account key: not base64 ({e})")))?;
    let tag = ring::hmac::sign(&ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key), text.as_bytes());
    Ok(engine.encode(tag.as_ref()))
}

fn azure_error(message: String) -> Error {
    Error::new(ErrorCode::AZURE_BLOB_STORAGE_ERROR, message)
}

/// The error of a refused container request, with the service's error code
/// (`<Code>AuthenticationFailed</Code>` in its XML body, or the `x-ms-error-code` header).
async fn failed_request(action: &str, container: &str, response: reqwest::Response) -> Error {
    let status = response.status();
    let header_code = response.headers().get("x-ms-error-code").and_then(|v| v.to_str().ok()).map(str::to_string);
    let body = response.text().await.unwrap_or_default();
    let body_code = body.split_once("<Code>").and_then(|(_, rest)| rest.split_once("</Code>")).map(|(code, _)| code.to_string());
    let code = header_code.or(body_code).unwrap_or_default();
    azure_error(format!("Cannot {action} Azure container {container}: {status} {code}").trim_end().to_string())
}

fn literal(text: &str) -> Expr {
    Expr::Literal(datafusion::common::ScalarValue::Utf8(Some(text.to_string())), None)
}

impl TableFunctionImpl for AzureFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let ctx = io_context(&args);
        Ok(self.table(&ctx, args.exprs())?)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn connection_strings() {
        let azurite = parse_connection_string(&format!(
            "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={DEVELOPMENT_KEY};BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1/;"
        ))
        .unwrap();
        assert_eq!(azurite, Account { endpoint: "http://127.0.0.1:10000/devstoreaccount1".into(), name: "devstoreaccount1".into(), auth: Auth::Key(DEVELOPMENT_KEY.into()) });
        let cloud = parse_connection_string("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=a2V5;EndpointSuffix=core.windows.net").unwrap();
        assert_eq!(cloud.endpoint, "https://acct.blob.core.windows.net");
        let sas = parse_connection_string("BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022&sig=abc%3D").unwrap();
        assert_eq!((sas.name.as_str(), sas.auth), ("acct", Auth::Sas("sv=2022&sig=abc%3D".into())));
        assert_eq!(parse_connection_string("UseDevelopmentStorage=true").unwrap().endpoint, DEVELOPMENT_ENDPOINT);
        assert!(parse_connection_string("garbage").is_err());
        assert!(parse_connection_string("DefaultEndpointsProtocol=https").is_err());
    }

    #[test]
    fn shared_key_signature() {
        let to_sign = shared_key_string_to_sign("PUT", "Fri, 27 Nov 2026 08:00:00 GMT", "devstoreaccount1", "/devstoreaccount1/new-container");
        assert_eq!(
            to_sign,
            "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:Fri, 27 Nov 2026 08:00:00 GMT\nx-ms-version:2023-11-03\n/devstoreaccount1/devstoreaccount1/new-container\nrestype:container"
        );
        // HMAC-SHA256 under the key "key" (a2V5 in base64): the well-known check value.
        assert_eq!(sign("a2V5", "The quick brown fox jumps over the lazy dog").unwrap(), "97yD9DBThCSxMpjmqm+xQ+9NWaFJRhdZl0edvC0aPNg=");
        assert!(sign("not base64!", "x").is_err());
    }

    #[test]
    fn storage_account_urls() {
        let url = account_of("http://127.0.0.1:10000/devstoreaccount1", Some("devstoreaccount1".into()), Some("a2V5".into())).unwrap();
        assert_eq!(url, Account { endpoint: "http://127.0.0.1:10000/devstoreaccount1".into(), name: "devstoreaccount1".into(), auth: Auth::Key("a2V5".into()) });
        let public = account_of("https://acct.blob.core.windows.net/", None, None).unwrap();
        assert_eq!((public.name.as_str(), public.auth), ("acct", Auth::Anonymous));
        let sas = account_of("https://acct.blob.core.windows.net/?sv=1&sig=x", None, None).unwrap();
        assert_eq!(sas.auth, Auth::Sas("sv=1&sig=x".into()));
        assert!(account_of("http://[bad", None, None).is_err());
    }
}
