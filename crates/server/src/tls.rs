//! HTTPS: the certificate and key of the config, loaded once at start.

use std::path::Path;
use std::sync::Arc;

use granary_common::{Error, ErrorCode, Result};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::ServerConfig as TlsConfig;
use tokio_rustls::TlsAcceptor;

use crate::config::ServerConfig;

fn bad_config(message: String) -> Error {
    Error::new(ErrorCode::BAD_ARGUMENTS, message)
}

/// The acceptor of the HTTPS port, when one is configured.
pub fn acceptor(config: &ServerConfig) -> Result<Option<TlsAcceptor>> {
    let Some(port) = config.https_port else { return Ok(None) };
    let (Some(certificate), Some(key)) = (&config.tls_certificate_file, &config.tls_private_key_file) else {
        return Err(bad_config(format!("https_port = {port} needs tls_certificate_file and tls_private_key_file")));
    };
    Ok(Some(TlsAcceptor::from(Arc::new(load(certificate, key)?))))
}

fn load(certificate: &Path, key: &Path) -> Result<TlsConfig> {
    let chain = CertificateDer::pem_file_iter(certificate)
        .and_then(|certs| certs.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|e| bad_config(format!("Cannot read the certificate {}: {e}", certificate.display())))?;
    if chain.is_empty() {
        return Err(bad_config(format!("No certificate in {}", certificate.display())));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| bad_config(format!("Cannot read the private key {}: {e}", key.display())))?;
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    TlsConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|builder| builder.with_no_client_auth().with_single_cert(chain, key))
        .map(|mut tls| {
            tls.alpn_protocols = vec![b"http/1.1".to_vec()];
            tls
        })
        .map_err(|e| bad_config(format!("Bad TLS certificate or key: {e}")))
}
