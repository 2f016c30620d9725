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
use crate::connection::{ConnectionIo, EarlyHead};
use crate::handler::{handle, HandlerState};
use crate::sessions::Sessions;
use tokio_rustls::TlsAcceptor;

/// A running server: its addresses, and a way to stop it.
pub struct ServerHandle {
    pub local_addr: SocketAddr,
    /// The HTTPS address, when `https_port` is configured.
    pub tls_addr: Option<SocketAddr>,
    shutdown: watch::Sender<bool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl ServerHandle {
    /// Stops accepting, lets running requests finish (bounded wait), and returns.
    pub async fn shutdown(self, wait: Duration) {
        let _ = self.shutdown.send(true);
        let _ = tokio::time::timeout(wait, futures::future::join_all(self.tasks)).await;
    }
}

async fn bind(host: &str, port: u16) -> Result<TcpListener> {
    let address = format!("{host}:{port}");
    TcpListener::bind(&address).await.map_err(|e| Error::new(ErrorCode::NETWORK_ERROR, format!("Cannot listen on {address}: {e}")))
}

/// Binds the HTTP port (and the HTTPS port, if configured) and serves until
/// [`ServerHandle::shutdown`].
pub async fn run_server(config: &ServerConfig, instance: Arc<Instance>) -> Result<ServerHandle> {
    let tls = crate::tls::acceptor(config)?;
    let listener = bind(&config.listen_host, config.http_port).await?;
    let local_addr = listener.local_addr()?;
    let tls_listener = match (&tls, config.https_port) {
        (Some(_), Some(port)) => Some(bind(&config.listen_host, port).await?),
        _ => None,
    };
    let tls_addr = tls_listener.as_ref().map(|l| l.local_addr()).transpose()?;
    let state = Arc::new(HandlerState {
        instance,
        sessions: Sessions::default(),
        default_session_timeout: Duration::from_secs(config.default_session_timeout),
    });
    let (shutdown, stop) = watch::channel(false);
    let mut tasks = vec![tokio::spawn(accept_loop(listener, None, state.clone(), stop.clone()))];
    if let Some(listener) = tls_listener {
        tasks.push(tokio::spawn(accept_loop(listener, tls, state, stop)));
    }
    Ok(ServerHandle { local_addr, tls_addr, shutdown, tasks })
}

/// Accepts connections until told to stop, then waits for them to finish.
async fn accept_loop(listener: TcpListener, tls: Option<TlsAcceptor>, state: Arc<HandlerState>, mut stop: watch::Receiver<bool>) {
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
                let (state, stop, tls) = (state.clone(), stop.clone(), tls.clone());
                granary_common::metrics::Event::HTTPConnectionsAccepted.add(1);
                connections.spawn(async move {
                    let _open = granary_common::metrics::GaugeGuard::new(granary_common::metrics::Metric::HTTPConnection);
                    let io = match tls {
                        None => ConnectionIo::new(stream),
                        Some(acceptor) => match tokio::time::timeout(TLS_HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                            Ok(Ok(tls_stream)) => ConnectionIo::new(tls_stream),
                            Ok(Err(e)) => {
                                tracing::debug!("TLS handshake with {peer} failed: {e}");
                                return;
                            }
                            Err(_) => {
                                tracing::debug!("TLS handshake with {peer} timed out");
                                return;
                            }
                        },
                    };
                    serve_connection(io, peer, state, stop).await;
                });
                while connections.try_join_next().is_some() {}
            }
        }
    }
    while connections.join_next().await.is_some() {}
}

/// A client that opens a connection and never finishes the handshake holds nothing for long.
const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

async fn serve_connection((io, head): (ConnectionIo, Arc<EarlyHead>), peer: SocketAddr, state: Arc<HandlerState>, mut stop: watch::Receiver<bool>) {
    let service = service_fn(move |request| {
        let (state, head) = (state.clone(), head.clone());
        // Boxed: hyper keeps the request's future inline in its dispatcher and moves it;
        // unboxed, copying the query's large state machine was 18% of a `SELECT 1`.
        Box::pin(async move { Ok::<_, std::convert::Infallible>(handle(state, request, peer, head).await) })
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
}
