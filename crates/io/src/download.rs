//! Reading one remote object as a byte stream for the text parsers.
//!
//! An object larger than `2 * max_download_buffer_size` is fetched as ranged GETs of
//! `max_download_buffer_size` bytes, `max_download_threads` of them in flight, delivered in
//! order; a smaller one is one streaming GET. Each range is retried on its own by the
//! client (5xx, throttling, timeouts), so a failure never re-reads what already arrived.
//! The bytes cross to the parser's blocking thread through a bounded channel: memory stays
//! at about `(threads + 2) * max_download_buffer_size` per object, and the download starts
//! as soon as the reader is opened, which is how the next file of a partition is
//! prefetched while the current one is parsed.

use std::io::Read;
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use granary_common::Settings;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};
use tokio::sync::mpsc;

use crate::remote::RemoteKind;

/// How one object is downloaded.
#[derive(Debug, Clone, Copy)]
pub struct DownloadOptions {
    pub buffer_size: u64,
    pub threads: usize,
}

impl DownloadOptions {
    pub fn from_settings(settings: &Settings) -> DownloadOptions {
        let buffer_size = settings.get_u64("max_download_buffer_size").max(64 << 10);
        // 'read' reads sequentially; 'threadpool' (the default) in parallel.
        let sequential = settings.get_str("remote_filesystem_read_method").eq_ignore_ascii_case("read");
        let threads = match settings.get_u64("max_download_threads") {
            _ if sequential => 1,
            0 => std::thread::available_parallelism().map_or(4, |n| n.get()),
            n => n as usize,
        };
        DownloadOptions { buffer_size, threads }
    }

    /// The ranges an object of `size` bytes is fetched in; `None`: one streaming GET.
    pub fn ranges(&self, size: u64) -> Option<Vec<Range<u64>>> {
        if size <= 2 * self.buffer_size {
            return None;
        }
        Some((0..size).step_by(self.buffer_size as usize).map(|start| start..(start + self.buffer_size).min(size)).collect())
    }
}

/// A blocking [`Read`] over an object being downloaded by the runtime.
pub struct ObjectReader {
    receiver: mpsc::Receiver<std::io::Result<Bytes>>,
    current: Bytes,
    finished: bool,
}

impl ObjectReader {
    /// Starts downloading on `runtime`; must be read from a thread that may block. A
    /// failure reads as an `io::Error` wrapping the Granary error (S3_ERROR, ...) for
    /// `kind`, which `Error::from(io::Error)` takes back out.
    pub fn open(runtime: &tokio::runtime::Handle, store: Arc<dyn ObjectStore>, kind: RemoteKind, location: ObjectPath, size: u64, options: DownloadOptions) -> ObjectReader {
        let (sender, receiver) = mpsc::channel(2);
        runtime.spawn(download(store, kind, location, size, options, sender));
        ObjectReader { receiver, current: Bytes::new(), finished: false }
    }
}

async fn download(store: Arc<dyn ObjectStore>, kind: RemoteKind, location: ObjectPath, size: u64, options: DownloadOptions, sender: mpsc::Sender<std::io::Result<Bytes>>) {
    let name = location.to_string();
    let to_io = |e: object_store::Error| std::io::Error::other(crate::remote::remote_error(kind, &name, e));
    match options.ranges(size) {
        Some(ranges) => {
            let fetches = futures::stream::iter(ranges).map(|range| {
                let (store, location) = (store.clone(), location.clone());
                async move { store.get_range(&location, range).await }
            });
            let mut in_order = fetches.buffered(options.threads);
            while let Some(piece) = in_order.next().await {
                let failed = piece.is_err();
                if sender.send(piece.map_err(to_io)).await.is_err() || failed {
                    return;
                }
            }
        }
        None => {
            let mut body = match store.get(&location).await {
                Ok(result) => result.into_stream(),
                Err(e) => {
                    let _ = sender.send(Err(to_io(e))).await;
                    return;
                }
            };
            while let Some(piece) = body.next().await {
                let failed = piece.is_err();
                if sender.send(piece.map_err(to_io)).await.is_err() || failed {
                    return;
                }
            }
        }
    }
}

impl Read for ObjectReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if !self.current.is_empty() {
                let n = buf.len().min(self.current.len());
                buf[..n].copy_from_slice(&self.current.split_to(n));
                return Ok(n);
            }
            if self.finished {
                return Ok(0);
            }
            match self.receiver.blocking_recv() {
                Some(Ok(piece)) => self.current = piece,
                Some(Err(e)) => {
                    self.finished = true;
                    return Err(e);
                }
                None => self.finished = true,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::memory::InMemory;

    #[test]
    fn ranges_cover_the_object_in_order() {
        let options = DownloadOptions { buffer_size: 100, threads: 3 };
        assert_eq!(options.ranges(200), None);
        assert_eq!(options.ranges(250).unwrap(), vec![0..100, 100..200, 200..250]);
    }

    #[test]
    fn reads_whole_objects_both_ways() {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let data: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
        let location = ObjectPath::from("a/b.bin");
        runtime.block_on(store.put(&location, data.clone().into())).unwrap();
        for options in [DownloadOptions { buffer_size: 65536, threads: 4 }, DownloadOptions { buffer_size: 10 << 20, threads: 1 }] {
            let mut reader = ObjectReader::open(runtime.handle(), store.clone(), RemoteKind::S3, location.clone(), data.len() as u64, options);
            let mut read = Vec::new();
            reader.read_to_end(&mut read).unwrap();
            assert_eq!(read, data);
        }
        let mut missing = ObjectReader::open(runtime.handle(), store, RemoteKind::S3, ObjectPath::from("nope"), 10, DownloadOptions { buffer_size: 65536, threads: 2 });
        assert!(missing.read_to_end(&mut Vec::new()).is_err());
    }
}
