//! Listener, connections and shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use granary_common::{Error, ErrorCode, Result};
use granary_query::Instance;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::config::ServerConfig;
use crate::connection::ConnectionIo;
use crate::handler::{handle, HandlerState};
use crate::sessions::Sessions;

/// A running server: its address, and a way to stop it.
pub struct ServerHandle {
    pub local_addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl ServerHandle {
    /// Stops accepting, lets running requests finish (bounded wait), and returns.
    pub async fn shutdown(self, wait: Duration) {
        let _ = self.shutdown.send(true);
        let _ = tokio::time::timeout(wait, self.task).await;
    }
}

/// Binds the HTTP port and serves until [`ServerHandle::shutdown`].
pub async fn run_server(config: &ServerConfig, instance: Arc<Instance>) -> Result<ServerHandle> {
    let address = format!("{}:{}", config.listen_host, config.http_port);
    let listener = TcpListener::bind(&address)
        .await
        .map_err(|e| Error::new(ErrorCode::NETWORK_ERROR, format!("Cannot listen on {address}: {e}")))?;
    let local_addr = listener.local_addr()?;
    let state = Arc::new(HandlerState {
        instance,
        sessions: Sessions::default(),
        default_session_timeout: Duration::from_secs(config.default_session_timeout),
    });
    let (shutdown, mut stop) = watch::channel(false);
    let task = tokio::spawn(async move {
        let mut connections = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                _ = stop.changed() => break,
                accepted = listener.accept() => {
                    let (stream, peer) = match accepted {
                        Ok(pair) => pair,
                        Err(e) => {
                            // Running out of file descriptors must not end the server.
                            tracing::warn!("accept failed: {e}");
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    };
                    let _ = stream.set_nodelay(true);
                    let state = state.clone();
                    let mut stop = stop.clone();
                    connections.spawn(async move {
                        let (io, head) = ConnectionIo::new(stream);
                        let service = service_fn(move |request| {
                            let (state, head) = (state.clone(), head.clone());
                            async move { Ok::<_, std::convert::Infallible>(handle(state, request, peer, head).await) }
                        });
                        let connection = http1::Builder::new().keep_alive(true).serve_connection(TokioIo::new(io), service);
                        tokio::pin!(connection);
                        tokio::select! {
                            result = connection.as_mut() => {
                                if let Err(e) = result {
                                    tracing::debug!("connection from {peer} ended: {e}");
                                }
                            }
                            _ = stop.changed() => {
                                connection.as_mut().graceful_shutdown();
                                let _ = connection.await;
                            }
                        }
                    });
                    while connections.try_join_next().is_some() {}
                }
            }
        }
        while connections.join_next().await.is_some() {}
    });
    Ok(ServerHandle { local_addr, shutdown, task })
}
