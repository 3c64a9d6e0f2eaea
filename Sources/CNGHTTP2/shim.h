// Debian's libnghttp2-dev (nghttp2 1.52 on bookworm): HTTP/2 framing, HPACK and flow control, driven
// through its session API by HeraldHTTP2's nghttp2 engine while NIO keeps the socket and TLS.
#ifndef HERALD_CNGHTTP2_SHIM_H
#define HERALD_CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>
#endif
