// OpenSSL's TLS client API as the TLS target sees it. Each `static inline copenssl_*` stands in
// for one function-like macro Swift cannot import, with one line saying which.
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/evp.h>

// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
static inline int copenssl_ctx_min_tls12(SSL_CTX *context) { return (int) SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION); }

// SSL_set_tlsext_host_name is a macro over SSL_ctrl: the server name (SNI) a name-based host needs.
static inline int copenssl_set_server_name(SSL *ssl, const char *name) { return (int) SSL_set_tlsext_host_name(ssl, name); }

#endif
