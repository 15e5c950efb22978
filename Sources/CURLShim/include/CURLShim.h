#ifndef PASTEBOARD_CURL_SHIM_H
#define PASTEBOARD_CURL_SHIM_H

#include <stddef.h>
#include <stdint.h>

/// libcurl, loaded with dlopen the first time a download starts: pb links no networking library, so every other
/// command starts as fast as before and a machine without libcurl only loses Copy from URL.

/// Loads libcurl.so.4 once. Returns 0, or -1 with a sentence in `error`.
int pb_curl_load(char *error, size_t size);

/// What one transfer calls back. Each function gets `context`.
typedef struct pb_curl_callbacks {
    void *context;
    /// A piece of the decoded body; return `length` to go on, anything else stops the transfer.
    size_t (*write)(void *context, const char *data, size_t length);
    /// Raw bytes so far and declared (0 for unknown); return non-zero to stop the transfer.
    int (*progress)(void *context, int64_t total, int64_t now);
    /// Whether a connection to this address may be opened: `address` holds 4 (AF_INET) or 16 (AF_INET6) bytes.
    int (*allow_address)(void *context, int family, const uint8_t *address, int port);
} pb_curl_callbacks;

typedef struct pb_curl_options {
    const char *user_agent;
    long connect_timeout_seconds;
    /// Stop when fewer than 1 byte a second arrives for this long.
    long stall_seconds;
    long total_timeout_ms;
} pb_curl_options;

/// What a finished transfer answered. Strings are copies, freed by pb_curl_result_free.
typedef struct pb_curl_result {
    int code;  /// CURLcode: 0 for a complete answer (any status below 400).
    long status;
    char *content_type;
    char *redirect_url;
    char message[256];
} pb_curl_result;

/// One GET of `url` (no redirects followed, no proxy, http and https only, gzip and deflate decoded as it arrives).
void pb_curl_get(const char *url, const pb_curl_options *options, const pb_curl_callbacks *callbacks,
                 pb_curl_result *result);
void pb_curl_result_free(pb_curl_result *result);

/// Parses `url` with libcurl's own parser, resolving it against `base` when `base` is not NULL. The parts are
/// copies (free with pb_curl_free); the host is normalised (numeric IPv4 forms as dotted quads, IPv6 in
/// brackets). Returns 0, or libcurl's CURLUcode.
int pb_curl_parse(const char *base, const char *url, char **whole, char **scheme, char **host, long *port);
void pb_curl_free(char *text);

#endif
