//! Object storage behind `s3()`, `gcs()`, `s3Cluster()` and `url()`: where a URL points
//! (endpoint, bucket, key), which credentials sign the requests, and the `object_store`
//! client that serves them.
//!
//! Clients are cached process-wide by their whole configuration, so repeated queries reuse
//! connection pools, and each gets a unique [`ObjectStoreUrl`] under which it is
//! registered with DataFusion (Parquet is read through DataFusion's parquet source).
//! Credentials are part of the cache key, so two users with different keys never share a
//! client.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use datafusion::datasource::object_store::ObjectStoreUrl;
use datafusion::execution::cache::cache_manager::FileMetadataCache;
use datafusion::execution::cache::default_cache::DefaultCache;
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result, Settings};
use object_store::aws::AmazonS3Builder;
use object_store::http::HttpBuilder;
use object_store::path::Path as ObjectPath;
use object_store::{ClientOptions, ObjectStore, ObjectStoreExt, RetryConfig};
use parking_lot::Mutex;

use crate::coded_store::CodedStore;
use crate::glob::{has_glob, Glob};
use crate::table::FileEntry;

/// A client for one bucket (or one URL), shared by every query that uses the same
/// configuration.
#[derive(Debug)]
pub struct RemoteStore {
    /// A [`crate::coded_store::CodedStore`]: its errors carry ClickHouse's code for `kind`.
    pub store: Arc<dyn ObjectStore>,
    pub kind: RemoteKind,
    /// The name DataFusion knows this client by.
    pub url: ObjectStoreUrl,
    /// What `_path` starts with: `bucket/` for S3, empty for url().
    pub path_prefix: String,
    /// Parquet footers of this store's objects.
    pub footer_cache: Arc<FileMetadataCache>,
}

/// Where an `s3()` URL points.
#[derive(Debug, Clone, PartialEq)]
pub struct S3Location {
    /// `scheme://host[:port]`; `None` for AWS itself (the endpoint follows the region).
    pub endpoint: Option<String>,
    pub region: Option<String>,
    pub bucket: String,
    /// The key or key glob, without a leading `/`.
    pub key: String,
    pub virtual_hosted: bool,
}

impl S3Location {
    /// Parses the URL forms ClickHouse accepts: `s3://bucket/key`, `gs://bucket/key`,
    /// virtual-hosted `https://bucket.s3[.region].amazonaws.com/key`, path-style
    /// `https://s3[.region].amazonaws.com/bucket/key`, `https://storage.googleapis.com/bucket/key`,
    /// and any other `http(s)://host[:port]/bucket/key` as a path-style custom endpoint
    /// (MinIO, SeaweedFS, Ceph).
    pub fn parse(text: &str) -> Result<S3Location> {
        let bad = |why: &str| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Bad S3 URL '{text}': {why}"));
        for (scheme, endpoint) in [("s3://", None), ("gs://", Some("https://storage.googleapis.com"))] {
            if let Some(rest) = text.strip_prefix(scheme) {
                let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
                if bucket.is_empty() {
                    return Err(bad("no bucket"));
                }
                return Ok(S3Location { endpoint: endpoint.map(str::to_string), region: None, bucket: bucket.into(), key: decode(key), virtual_hosted: false });
            }
        }
        let url = url::Url::parse(text).map_err(|e| bad(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad("expected an http, https, s3 or gs URL"));
        }
        let host = url.host_str().ok_or_else(|| bad("no host"))?.to_string();
        let origin = match url.port() {
            Some(port) => format!("{}://{host}:{port}", url.scheme()),
            None => format!("{}://{host}", url.scheme()),
        };
        // The key is everything after the bucket, as written (globs included): the URL
        // parser would re-encode `{`, `}` and spaces.
        let after_host = text.splitn(4, '/').nth(3).unwrap_or("");
        let path_style = |region: Option<String>| -> Result<S3Location> {
            let (bucket, key) = after_host.split_once('/').unwrap_or((after_host, ""));
            if bucket.is_empty() {
                return Err(bad("no bucket in the path"));
            }
            Ok(S3Location { endpoint: Some(origin.clone()), region, bucket: decode(bucket), key: decode(key), virtual_hosted: false })
        };
        if let Some(service) = host.strip_suffix(".amazonaws.com") {
            // `s3.eu-west-1`, `s3-eu-west-1`, `s3`: path style; `bucket.s3.eu-west-1`: virtual-hosted.
            if service == "s3" || service.starts_with("s3.") || service.starts_with("s3-") {
                return path_style(aws_region(service));
            }
            let Some(at) = service.find(".s3") else { return Err(bad("not an S3 host")) };
            let region = aws_region(&service[at + 1..]);
            let endpoint = region.as_ref().map(|r| format!("{}://s3.{r}.amazonaws.com", url.scheme()));
            return Ok(S3Location { endpoint, region, bucket: service[..at].into(), key: decode(after_host), virtual_hosted: true });
        }
        path_style(None)
    }

    /// `_path` of a key, as ClickHouse prints it: `bucket/key`.
    pub fn display(&self, key: &str) -> String {
        format!("{}/{key}", self.bucket)
    }
}

/// `s3.eu-west-1` / `s3-eu-west-1` / `s3.dualstack.eu-west-1` -> `eu-west-1`.
fn aws_region(service: &str) -> Option<String> {
    let rest = service.strip_prefix("s3")?.trim_start_matches(['.', '-']);
    let rest = rest.strip_prefix("dualstack.").unwrap_or(rest);
    (!rest.is_empty()).then(|| rest.to_string())
}

fn decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// How requests are signed.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Credentials {
    /// Keys from the arguments, the server config or the environment.
    Keys { access_key_id: String, secret_access_key: String, session_token: Option<String> },
    /// `NOSIGN`, or nothing configured anywhere: anonymous requests (public buckets).
    #[default]
    Anonymous,
}

/// An `[s3.<name>]` section of the server config: credentials (and a region) used for
/// every URL that starts with `endpoint`, as ClickHouse's `<s3>` endpoint settings.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct S3EndpointConfig {
    pub endpoint: String,
    #[serde(default)]
    pub access_key_id: Option<String>,
    #[serde(default)]
    pub secret_access_key: Option<String>,
    #[serde(default)]
    pub session_token: Option<String>,
    #[serde(default)]
    pub region: Option<String>,
    #[serde(default)]
    pub no_sign_request: bool,
    /// Read credentials from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`
    /// when the section has no keys (default); `false` sends such requests unsigned.
    #[serde(default = "environment_credentials_by_default")]
    pub use_environment_credentials: bool,
}

fn environment_credentials_by_default() -> bool {
    true
}

/// Credentials for a URL given without keys: the longest matching config endpoint, then
/// the environment, then anonymous.
pub fn default_credentials(url: &str, endpoints: &[S3EndpointConfig]) -> (Credentials, Option<String>) {
    let matched = endpoints.iter().filter(|e| url.starts_with(e.endpoint.as_str())).max_by_key(|e| e.endpoint.len());
    if let Some(config) = matched {
        if config.no_sign_request {
            return (Credentials::Anonymous, config.region.clone());
        }
        if let (Some(id), Some(secret)) = (&config.access_key_id, &config.secret_access_key) {
            let keys = Credentials::Keys { access_key_id: id.clone(), secret_access_key: secret.clone(), session_token: config.session_token.clone() };
            return (keys, config.region.clone());
        }
        if !config.use_environment_credentials {
            // Neither keys nor the environment: requests go unsigned.
            return (Credentials::Anonymous, config.region.clone());
        }
        return (environment_credentials().unwrap_or_default(), config.region.clone());
    }
    (environment_credentials().unwrap_or_default(), None)
}

fn environment_credentials() -> Option<Credentials> {
    let id = std::env::var("AWS_ACCESS_KEY_ID").ok().filter(|v| !v.is_empty())?;
    let secret = std::env::var("AWS_SECRET_ACCESS_KEY").ok().filter(|v| !v.is_empty())?;
    Some(Credentials::Keys { access_key_id: id, secret_access_key: secret, session_token: std::env::var("AWS_SESSION_TOKEN").ok().filter(|v| !v.is_empty()) })
}

/// The request knobs of a client, from the query's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientKnobs {
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub retries: usize,
    /// The first retry waits `initial_backoff`; each later one a random time up to twice
    /// the previous wait, at most `max_backoff`.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    pub max_idle_connections: usize,
}

impl ClientKnobs {
    pub fn from_settings(settings: &Settings, remote: RemoteKind) -> ClientKnobs {
        let ms = |name: &str| Duration::from_millis(settings.get_u64(name).max(1));
        let secs = |name: &str| Duration::from_secs(settings.get_u64(name).max(1));
        match remote {
            // ClickHouse has no query settings for the S3 client's backoff: object_store's
            // defaults (100 ms, doubling up to 15 s).
            RemoteKind::S3 => ClientKnobs {
                connect_timeout: ms("s3_connect_timeout_ms"),
                request_timeout: ms("s3_request_timeout_ms"),
                retries: settings.get_u64("s3_retry_attempts") as usize,
                initial_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(15),
                max_idle_connections: settings.get_u64("s3_max_connections").max(1) as usize,
            },
            RemoteKind::Url => ClientKnobs {
                connect_timeout: secs("http_connection_timeout"),
                request_timeout: secs("http_receive_timeout"),
                retries: settings.get_u64("http_max_tries").saturating_sub(1) as usize,
                initial_backoff: ms("http_retry_initial_backoff_ms"),
                max_backoff: ms("http_retry_max_backoff_ms"),
                max_idle_connections: 64,
            },
            RemoteKind::Azure => ClientKnobs {
                connect_timeout: ms("azure_connect_timeout_ms"),
                request_timeout: ms("azure_request_timeout_ms"),
                retries: settings.get_u64("azure_sdk_max_retries") as usize,
                initial_backoff: ms("azure_sdk_retry_initial_backoff_ms"),
                max_backoff: ms("azure_sdk_retry_max_backoff_ms"),
                max_idle_connections: 64,
            },
        }
    }

    pub(crate) fn client_options(&self) -> ClientOptions {
        ClientOptions::new()
            .with_allow_http(true)
            .with_connect_timeout(self.connect_timeout)
            // Ranged GETs are at most `max_download_buffer_size`; the timeout bounds one of them.
            .with_timeout(self.request_timeout)
            .with_pool_max_idle_per_host(self.max_idle_connections)
    }

    pub(crate) fn retry_config(&self) -> RetryConfig {
        let backoff = object_store::BackoffConfig { init_backoff: self.initial_backoff, max_backoff: self.max_backoff.max(self.initial_backoff), base: 2.0 };
        RetryConfig { max_retries: self.retries, backoff, ..RetryConfig::default() }
    }
}

/// The service behind a client, which decides the error code of its failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteKind {
    S3,
    Url,
    Azure,
}

static STORES: Mutex<Option<HashMap<String, Arc<RemoteStore>>>> = Mutex::new(None);
static NEXT_STORE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
/// Clients kept; beyond this the cache starts over (queries holding a client keep it).
const MAX_CACHED_STORES: usize = 256;
/// Parquet footers kept per store.
const FOOTER_CACHE_BYTES: usize = 32 << 20;

pub(crate) fn cached_store(kind: RemoteKind, cache_key: String, path_prefix: String, build: impl FnOnce() -> Result<Arc<dyn ObjectStore>>) -> Result<Arc<RemoteStore>> {
    let mut guard = STORES.lock();
    let stores = guard.get_or_insert_with(HashMap::new);
    if let Some(found) = stores.get(&cache_key) {
        return Ok(found.clone());
    }
    if stores.len() >= MAX_CACHED_STORES {
        stores.clear();
    }
    let id = NEXT_STORE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let url = ObjectStoreUrl::parse(format!("granary{id}://store")).map_err(Error::from)?;
    let footer_cache: Arc<FileMetadataCache> = Arc::new(DefaultCache::new(FOOTER_CACHE_BYTES));
    let store: Arc<dyn ObjectStore> = Arc::new(CodedStore::new(build()?, kind, path_prefix.clone()));
    let remote = Arc::new(RemoteStore { store, kind, url, path_prefix, footer_cache });
    stores.insert(cache_key, remote.clone());
    Ok(remote)
}

/// The client for a bucket.
pub fn s3_store(location: &S3Location, credentials: &Credentials, region: Option<&str>, knobs: &ClientKnobs) -> Result<Arc<RemoteStore>> {
    let region = location.region.as_deref().or(region).map(str::to_string).or_else(|| std::env::var("AWS_REGION").ok()).unwrap_or_else(|| "us-east-1".into());
    let cache_key = format!("s3|{:?}|{}|{region}|{}|{credentials:?}|{knobs:?}", location.endpoint, location.bucket, location.virtual_hosted);
    cached_store(RemoteKind::S3, cache_key, format!("{}/", location.bucket), || {
        let mut builder = AmazonS3Builder::new()
            .with_bucket_name(&location.bucket)
            .with_region(&region)
            .with_client_options(knobs.client_options())
            .with_retry(knobs.retry_config())
            .with_virtual_hosted_style_request(location.virtual_hosted && location.endpoint.is_none());
        if let Some(endpoint) = &location.endpoint {
            builder = builder.with_endpoint(endpoint).with_allow_http(true);
        }
        builder = match credentials {
            Credentials::Keys { access_key_id, secret_access_key, session_token } => {
                let b = builder.with_access_key_id(access_key_id).with_secret_access_key(secret_access_key);
                match session_token {
                    Some(token) => b.with_token(token),
                    None => b,
                }
            }
            Credentials::Anonymous => builder.with_skip_signature(true),
        };
        let store = builder.build().map_err(|e| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Cannot create an S3 client for bucket {}: {e}", location.bucket)))?;
        Ok(Arc::new(store) as Arc<dyn ObjectStore>)
    })
}

/// The client for one URL of url(): the whole URL (query string included) is the base and
/// the object is the empty path, so nothing of the URL is re-encoded.
pub fn url_store(url: &str, knobs: &ClientKnobs) -> Result<Arc<RemoteStore>> {
    let cache_key = format!("url|{url}|{knobs:?}");
    cached_store(RemoteKind::Url, cache_key, String::new(), || {
        let store = HttpBuilder::new()
            .with_url(url)
            .with_client_options(knobs.client_options())
            .with_retry(knobs.retry_config())
            .build()
            .map_err(|e| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Bad URL '{url}': {e}")))?;
        Ok(Arc::new(store) as Arc<dyn ObjectStore>)
    })
}

/// Maps an object-store failure to ClickHouse's error codes (S3_ERROR 499 for S3, 86
/// RECEIVED_ERROR_FROM_REMOTE_IO_SERVER for url(), AZURE_BLOB_STORAGE_ERROR 500 for
/// Azure); an error the [`CodedStore`] already coded keeps its code and message.
pub fn remote_error(kind: RemoteKind, what: &str, e: object_store::Error) -> Error {
    crate::coded_store::granary_error(kind, what, e)
}

/// The message for a failed request: the service's own error code and message when its
/// answer has them (S3's and Azure's XML `<Code>` / `<Message>`), the HTTP status and
/// how often it was tried, then the object.
pub(crate) fn describe_remote_error(kind: RemoteKind, what: &str, e: &object_store::Error) -> Error {
    let code = crate::coded_store::error_code(kind);
    if let object_store::Error::NotFound { .. } = e {
        let text = match kind {
            RemoteKind::S3 => format!("The specified key does not exist. This error happened for S3 disk. ({what})"),
            RemoteKind::Azure if error_chain_text(e).contains("ContainerNotFound") => format!("The specified container does not exist. ({what})"),
            // A HEAD answer has no body to tell a missing container from a missing blob.
            RemoteKind::Azure => format!("The specified blob (or its container) does not exist. ({what})"),
            RemoteKind::Url => format!("{e} ({what})"),
        };
        return Error::new(code, text);
    }
    let text = e.to_string();
    // "Generic S3 error: " marks errors that carry a Granary error (classified by that
    // text when a reader keeps only the message); it must not appear twice.
    let text = match e {
        object_store::Error::Generic { store, .. } => text.strip_prefix(&format!("Generic {store} error: ")).map(str::to_string).unwrap_or(text),
        _ => text,
    };
    let service = match kind {
        RemoteKind::S3 => "S3",
        RemoteKind::Azure => "Azure Blob Storage",
        RemoteKind::Url => "HTTP",
    };
    let retries = text.split(", after ").nth(1).and_then(|rest| rest.split(" retries").next()).and_then(|n| n.trim().parse::<u64>().ok());
    let tried = match retries {
        Some(n) => format!(", tried {} times", n + 1),
        None => String::new(),
    };
    let message = match (xml_element(&text, "Code"), xml_element(&text, "Message"), http_status(&text)) {
        (Some(service_code), Some(service_message), Some(status)) => {
            format!("{service_message} ({service} error {service_code}, HTTP status {status}{tried}) ({what})")
        }
        _ => {
            // object_store's own text names the failing layer only ("response body
            // error"); the sources say what happened (a reset, a timeout).
            let mut detail = text.clone();
            let mut source = std::error::Error::source(e);
            while let Some(cause) = source {
                let cause_text = cause.to_string();
                if !detail.contains(&cause_text) {
                    detail = format!("{detail}: {cause_text}");
                }
                source = cause.source();
            }
            format!("{detail} ({what})")
        }
    };
    Error::new(code, message)
}

/// The text of an error and all its sources.
fn error_chain_text(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn xml_element<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let start = text.find(&format!("<{name}>"))? + name.len() + 2;
    let end = text[start..].find(&format!("</{name}>"))? + start;
    Some(text[start..end].trim())
}

/// `503 Service Unavailable` from object_store's "non-2xx status code: 503 Service Unavailable: ...".
fn http_status(text: &str) -> Option<&str> {
    let rest = text.split("status code: ").nth(1)?;
    Some(rest.split(':').next()?.trim())
}

/// The objects a key (or key glob) names. A plain key is one HEAD request; a glob lists
/// from its longest literal prefix (ListObjectsV2, paged by the client) and keeps the
/// keys the whole glob matches.
pub async fn list_objects(remote: &Arc<RemoteStore>, key: &str, ignore_missing: bool) -> Result<Vec<FileEntry>> {
    let entry = |location: &ObjectPath, size: u64, last_modified, etag: Option<String>| FileEntry {
        path: format!("{}{}", remote.path_prefix, location.as_ref()),
        size,
        last_modified: Some(last_modified),
        // ClickHouse's `_etag` is quoted as an ETag header is; Azure's listings leave the
        // quotes out (its HEAD answers keep them).
        etag: match remote.kind {
            RemoteKind::Azure => etag.map(|e| if e.starts_with('"') { e } else { format!("\"{e}\"") }),
            _ => etag,
        },
        remote: Some(Arc::new(crate::table::RemoteObject { store: remote.clone(), location: location.clone() })),
        hive_values: None,
    };
    if !has_glob(key) {
        let location = ObjectPath::from(key);
        return match remote.store.head(&location).await {
            Ok(meta) => Ok(vec![entry(&location, meta.size, meta.last_modified, meta.e_tag)]),
            Err(object_store::Error::NotFound { .. }) if ignore_missing => Ok(Vec::new()),
            Err(e) => Err(remote_error(remote.kind, &format!("{}{key}", remote.path_prefix), e)),
        };
    }
    let glob = Glob::new(key)?;
    let literal = glob.literal_prefix();
    // `list` takes a prefix of whole path segments; the partial last segment is filtered here.
    let directory = match literal.rfind('/') {
        Some(at) => &literal[..at],
        None => "",
    };
    let prefix = (!directory.is_empty()).then(|| ObjectPath::from(directory));
    let mut listing = remote.store.list(prefix.as_ref());
    let mut files = Vec::new();
    while let Some(meta) = listing.next().await {
        let meta = meta.map_err(|e| remote_error(remote.kind, &format!("listing {}{key}", remote.path_prefix), e))?;
        if glob.matches(meta.location.as_ref()) {
            files.push(entry(&meta.location, meta.size, meta.last_modified, meta.e_tag));
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// Runs blocking I/O on remote objects from synchronous code that may be on a runtime
/// worker (table functions are planned synchronously inside the runtime): on a thread of
/// its own, with the runtime entered so downloads can be spawned and awaited.
pub fn run_blocking_io<T: Send>(work: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    use tokio::runtime::{Handle, RuntimeFlavor};
    let on_thread = |handle: Handle| {
        std::thread::scope(|scope| {
            scope
                .spawn(move || {
                    let _entered = handle.enter();
                    work()
                })
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    };
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(|| on_thread(handle)),
        // No runtime, or a current-thread one (unit tests) that cannot run the downloads
        // while this thread waits: a small runtime of its own.
        _ => match tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build() {
            Ok(runtime) => on_thread(runtime.handle().clone()),
            Err(e) => Err(Error::new(ErrorCode::CANNOT_SCHEDULE_TASK, format!("Cannot start an I/O runtime: {e}"))),
        },
    }
}

/// Runs an object-store future to completion from synchronous code.
pub fn block_on<T: Send, F: std::future::Future<Output = Result<T>> + Send>(future: F) -> Result<T> {
    run_blocking_io(move || tokio::runtime::Handle::current().block_on(future))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(endpoint: Option<&str>, region: Option<&str>, bucket: &str, key: &str, vh: bool) -> S3Location {
        S3Location { endpoint: endpoint.map(Into::into), region: region.map(Into::into), bucket: bucket.into(), key: key.into(), virtual_hosted: vh }
    }

    #[test]
    fn url_forms() {
        assert_eq!(S3Location::parse("s3://b/k/x.csv").unwrap(), loc(None, None, "b", "k/x.csv", false));
        assert_eq!(S3Location::parse("gs://b/k").unwrap(), loc(Some("https://storage.googleapis.com"), None, "b", "k", false));
        assert_eq!(
            S3Location::parse("https://datasets-documentation.s3.eu-west-3.amazonaws.com/nyc-taxi/trips_{0..2}.gz").unwrap(),
            loc(Some("https://s3.eu-west-3.amazonaws.com"), Some("eu-west-3"), "datasets-documentation", "nyc-taxi/trips_{0..2}.gz", true)
        );
        assert_eq!(S3Location::parse("https://b.s3.amazonaws.com/k").unwrap(), loc(None, None, "b", "k", true));
        assert_eq!(S3Location::parse("https://s3.us-west-2.amazonaws.com/b/a/b c.csv").unwrap(), loc(Some("https://s3.us-west-2.amazonaws.com"), Some("us-west-2"), "b", "a/b c.csv", false));
        assert_eq!(S3Location::parse("http://127.0.0.1:9000/test-bucket/data/*.parquet").unwrap(), loc(Some("http://127.0.0.1:9000"), None, "test-bucket", "data/*.parquet", false));
        assert_eq!(S3Location::parse("https://storage.googleapis.com/b/k%20x").unwrap(), loc(Some("https://storage.googleapis.com"), None, "b", "k x", false));
        assert!(S3Location::parse("ftp://x/y").is_err());
        assert!(S3Location::parse("http://host/").is_err());
        assert!(S3Location::parse("s3:///k").is_err());
    }

    #[test]
    fn credentials_from_config_endpoints() {
        let endpoints = vec![
            S3EndpointConfig { endpoint: "http://minio:9000/".into(), access_key_id: Some("a".into()), secret_access_key: Some("s".into()), ..Default::default() },
            S3EndpointConfig { endpoint: "http://minio:9000/public/".into(), no_sign_request: true, ..Default::default() },
        ];
        let (c, _) = default_credentials("http://minio:9000/data/x.csv", &endpoints);
        assert_eq!(c, Credentials::Keys { access_key_id: "a".into(), secret_access_key: "s".into(), session_token: None });
        let (c, _) = default_credentials("http://minio:9000/public/x.csv", &endpoints);
        assert_eq!(c, Credentials::Anonymous);
    }
}
