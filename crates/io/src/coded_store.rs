//! An object store whose failures carry ClickHouse's error code for the service behind
//! it: S3_ERROR for s3()/gcs(), RECEIVED_ERROR_FROM_REMOTE_IO_SERVER for url(),
//! AZURE_BLOB_STORAGE_ERROR for azureBlobStorage().
//!
//! DataFusion's Parquet reader talks to the store directly and passes its errors up
//! wrapped in its own; wrapping the store is what lets a throttled or failing read
//! reach the user with the right code whichever reader hit it. The Granary error rides
//! as the `source` of an `object_store::Error` (`NotFound` stays `NotFound`, so callers
//! can still tell a missing object from a failure).

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use granary_common::{Error, ErrorCode};
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload, ObjectMeta, ObjectStore, PutMultipartOptions, PutOptions, PutPayload,
    PutResult, RenameOptions, UploadPart,
};

use crate::remote::RemoteKind;

/// `inner` with coded errors; `display_prefix` + the key names an object in messages
/// (`bucket/` for S3, `container/` for Azure, empty for a URL).
#[derive(Debug)]
pub struct CodedStore {
    inner: Arc<dyn ObjectStore>,
    kind: RemoteKind,
    display_prefix: String,
}

impl CodedStore {
    pub fn new(inner: Arc<dyn ObjectStore>, kind: RemoteKind, display_prefix: String) -> CodedStore {
        CodedStore { inner, kind, display_prefix }
    }

    fn code(&self, what: &Path, e: object_store::Error) -> object_store::Error {
        let name = format!("{}{}", self.display_prefix, what.as_ref());
        code_error(self.kind, &name, e)
    }
}

impl fmt::Display for CodedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.inner)
    }
}

/// The store's name in `object_store::Error::Generic` for each kind.
fn store_name(kind: RemoteKind) -> &'static str {
    match kind {
        RemoteKind::S3 => "S3",
        RemoteKind::Url => "HTTP",
        RemoteKind::Azure => "MicrosoftAzure",
    }
}

/// Puts the Granary error for `e` inside it (once; an already coded error is kept).
pub(crate) fn code_error(kind: RemoteKind, what: &str, e: object_store::Error) -> object_store::Error {
    if carries_code(&e) {
        return e;
    }
    let coded = Box::new(crate::remote::describe_remote_error(kind, what, &e));
    match e {
        object_store::Error::NotFound { path, .. } => object_store::Error::NotFound { path, source: coded },
        _ => object_store::Error::Generic { store: store_name(kind), source: coded },
    }
}

fn carries_code(e: &object_store::Error) -> bool {
    match e {
        object_store::Error::Generic { source, .. } | object_store::Error::NotFound { source, .. } => source.is::<Error>(),
        _ => false,
    }
}

/// The Granary error inside a coded `object_store::Error`, or one made for it now.
pub(crate) fn granary_error(kind: RemoteKind, what: &str, e: object_store::Error) -> Error {
    match e {
        object_store::Error::Generic { source, store } => match source.downcast::<Error>() {
            Ok(ours) => *ours,
            Err(source) => crate::remote::describe_remote_error(kind, what, &object_store::Error::Generic { store, source }),
        },
        object_store::Error::NotFound { source, path } => match source.downcast::<Error>() {
            Ok(ours) => *ours,
            Err(source) => crate::remote::describe_remote_error(kind, what, &object_store::Error::NotFound { path, source }),
        },
        other => crate::remote::describe_remote_error(kind, what, &other),
    }
}

#[async_trait]
impl ObjectStore for CodedStore {
    async fn put_opts(&self, location: &Path, payload: PutPayload, opts: PutOptions) -> object_store::Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await.map_err(|e| self.code(location, e))
    }

    async fn put_multipart_opts(&self, location: &Path, opts: PutMultipartOptions) -> object_store::Result<Box<dyn MultipartUpload>> {
        let upload = self.inner.put_multipart_opts(location, opts).await.map_err(|e| self.code(location, e))?;
        Ok(Box::new(CodedUpload { inner: upload, kind: self.kind, name: format!("{}{}", self.display_prefix, location.as_ref()) }))
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> object_store::Result<GetResult> {
        let result = self.inner.get_opts(location, options).await.map_err(|e| self.code(location, e))?;
        let payload = match result.payload {
            GetResultPayload::Stream(stream) => {
                let (kind, name) = (self.kind, format!("{}{}", self.display_prefix, location.as_ref()));
                GetResultPayload::Stream(stream.map_err(move |e| code_error(kind, &name, e)).boxed())
            }
            other => other,
        };
        Ok(GetResult { payload, ..result })
    }

    async fn get_ranges(&self, location: &Path, ranges: &[Range<u64>]) -> object_store::Result<Vec<Bytes>> {
        self.inner.get_ranges(location, ranges).await.map_err(|e| self.code(location, e))
    }

    fn delete_stream(&self, locations: BoxStream<'static, object_store::Result<Path>>) -> BoxStream<'static, object_store::Result<Path>> {
        let (kind, prefix) = (self.kind, self.display_prefix.clone());
        self.inner.delete_stream(locations).map_err(move |e| code_error(kind, &prefix, e)).boxed()
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        let (kind, name) = (self.kind, format!("{}{}", self.display_prefix, prefix.map(|p| p.as_ref()).unwrap_or("")));
        self.inner.list(prefix).map_err(move |e| code_error(kind, &name, e)).boxed()
    }

    fn list_with_offset(&self, prefix: Option<&Path>, offset: &Path) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        let (kind, name) = (self.kind, format!("{}{}", self.display_prefix, prefix.map(|p| p.as_ref()).unwrap_or("")));
        self.inner.list_with_offset(prefix, offset).map_err(move |e| code_error(kind, &name, e)).boxed()
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        let name = prefix.cloned().unwrap_or_default();
        self.inner.list_with_delimiter(prefix).await.map_err(|e| self.code(&name, e))
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await.map_err(|e| self.code(from, e))
    }

    async fn rename_opts(&self, from: &Path, to: &Path, options: RenameOptions) -> object_store::Result<()> {
        self.inner.rename_opts(from, to, options).await.map_err(|e| self.code(from, e))
    }
}

#[derive(Debug)]
struct CodedUpload {
    inner: Box<dyn MultipartUpload>,
    kind: RemoteKind,
    name: String,
}

#[async_trait]
impl MultipartUpload for CodedUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        let (kind, name) = (self.kind, self.name.clone());
        let part = self.inner.put_part(data);
        Box::pin(async move { part.await.map_err(|e| code_error(kind, &name, e)) })
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        self.inner.complete().await.map_err(|e| code_error(self.kind, &self.name, e))
    }

    async fn abort(&mut self) -> object_store::Result<()> {
        self.inner.abort().await.map_err(|e| code_error(self.kind, &self.name, e))
    }
}

/// The error codes by kind, for [`crate::remote::describe_remote_error`].
pub(crate) fn error_code(kind: RemoteKind) -> ErrorCode {
    match kind {
        RemoteKind::S3 => ErrorCode::S3_ERROR,
        RemoteKind::Url => ErrorCode::RECEIVED_ERROR_FROM_REMOTE_IO_SERVER,
        RemoteKind::Azure => ErrorCode::AZURE_BLOB_STORAGE_ERROR,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use object_store::memory::InMemory;
    use object_store::ObjectStoreExt;

    #[test]
    fn failures_carry_the_code_and_not_found_stays_not_found() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let store = CodedStore::new(Arc::new(InMemory::new()), RemoteKind::S3, "bucket/".into());
        let missing = runtime.block_on(store.get(&Path::from("nope.csv"))).unwrap_err();
        assert!(matches!(missing, object_store::Error::NotFound { .. }));
        let coded = granary_error(RemoteKind::S3, "x", missing);
        assert_eq!(coded.code(), ErrorCode::S3_ERROR);
        assert!(coded.message().contains("bucket/nope.csv"), "{}", coded.message());
        // Coding twice keeps the first.
        let once = code_error(RemoteKind::Url, "a", object_store::Error::NotImplemented { operation: "x".into(), implementer: "y".into() });
        let twice = code_error(RemoteKind::S3, "b", once);
        assert_eq!(granary_error(RemoteKind::S3, "c", twice).code(), ErrorCode::RECEIVED_ERROR_FROM_REMOTE_IO_SERVER);
    }
}
