#include "CURLShim.h"

#include <dlfcn.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

// The few parts of libcurl's ABI used here (stable since libcurl 7.x; see curl/curl.h and curl/urlapi.h).
enum {
    OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_ERRORBUFFER = 10010, OPT_WRITEFUNCTION = 20011,
    OPT_USERAGENT = 10018, OPT_LOW_SPEED_LIMIT = 19, OPT_LOW_SPEED_TIME = 20, OPT_NOPROGRESS = 43,
    OPT_FAILONERROR = 45, OPT_FOLLOWLOCATION = 52, OPT_XFERINFODATA = 10057, OPT_CONNECTTIMEOUT = 78,
    OPT_NOSIGNAL = 99, OPT_ACCEPT_ENCODING = 10102, OPT_TIMEOUT_MS = 155, OPT_OPENSOCKETFUNCTION = 20163,
    OPT_OPENSOCKETDATA = 10164, OPT_NOPROXY = 10177, OPT_PROTOCOLS = 181, OPT_REDIR_PROTOCOLS = 182,
    OPT_XFERINFOFUNCTION = 20219,
};
enum { INFO_RESPONSE_CODE = 0x200002, INFO_CONTENT_TYPE = 0x100012, INFO_REDIRECT_URL = 0x10001F };
enum { PROTO_HTTP = 1, PROTO_HTTPS = 2 };
enum { UPART_URL = 0, UPART_SCHEME = 1, UPART_HOST = 5, UPART_PORT = 6 };
enum { U_DEFAULT_PORT = 1 << 0, U_NON_SUPPORT_SCHEME = 1 << 3 };

struct curl_sockaddr_view {
    int family;
    int socktype;
    int protocol;
    unsigned int addrlen;
    struct sockaddr addr;  // really addrlen bytes (sockaddr_in or sockaddr_in6)
};

typedef void CURL;
typedef void CURLU;
static struct {
    int (*global_init)(long);
    CURL *(*easy_init)(void);
    int (*easy_setopt)(CURL *, int, ...);
    int (*easy_perform)(CURL *);
    int (*easy_getinfo)(CURL *, int, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(int);
    CURLU *(*url)(void);
    void (*url_cleanup)(CURLU *);
    int (*url_set)(CURLU *, int, const char *, unsigned int);
    int (*url_get)(CURLU *, int, char **, unsigned int);
    void (*free)(void *);
} curl;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256] = "libcurl was not loaded.";  // written once, by load()

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error,
                 "Copy from URL needs libcurl (Debian and Ubuntu: apt install libcurl4): %s", dlerror());
        return;
    }
#define FIND(field, name)                                                                                  \
    if (!(*(void **)&curl.field = dlsym(library, name))) {                                                 \
        snprintf(load_error, sizeof load_error, "The libcurl found lacks %s; Copy from URL needs libcurl 7.62 or later.", name); \
        return;                                                                                            \
    }
    FIND(global_init, "curl_global_init")
    FIND(easy_init, "curl_easy_init")
    FIND(easy_setopt, "curl_easy_setopt")
    FIND(easy_perform, "curl_easy_perform")
    FIND(easy_getinfo, "curl_easy_getinfo")
    FIND(easy_cleanup, "curl_easy_cleanup")
    FIND(easy_strerror, "curl_easy_strerror")
    FIND(url, "curl_url")
    FIND(url_cleanup, "curl_url_cleanup")
    FIND(url_set, "curl_url_set")
    FIND(url_get, "curl_url_get")
    FIND(free, "curl_free")
#undef FIND
    if (curl.global_init(3) != 0) {
        snprintf(load_error, sizeof load_error, "libcurl could not start (curl_global_init failed).");
        return;
    }
    load_error[0] = '\0';
}

int pb_curl_load(char *error, size_t size) {
    pthread_once(&load_once, load);
    if (load_error[0] == '\0') return 0;
    if (error && size) snprintf(error, size, "%s", load_error);
    return -1;
}

static size_t on_write(char *data, size_t size, size_t count, void *context) {
    const pb_curl_callbacks *callbacks = context;
    return callbacks->write(callbacks->context, data, size * count);
}

static int on_progress(void *context, int64_t total, int64_t now, int64_t upload_total, int64_t upload_now) {
    (void)upload_total;
    (void)upload_now;
    const pb_curl_callbacks *callbacks = context;
    return callbacks->progress(callbacks->context, total, now);
}

static int on_open_socket(void *context, int purpose, struct curl_sockaddr_view *address) {
    (void)purpose;
    const pb_curl_callbacks *callbacks = context;
    int allowed = 0;
    if (address->family == AF_INET && address->addrlen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&address->addr;
        allowed = callbacks->allow_address(callbacks->context, AF_INET, (const uint8_t *)&in->sin_addr,
                                           ntohs(in->sin_port));
    } else if (address->family == AF_INET6 && address->addrlen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&address->addr;
        allowed = callbacks->allow_address(callbacks->context, AF_INET6, (const uint8_t *)&in6->sin6_addr,
                                           ntohs(in6->sin6_port));
    }
    if (!allowed) return -1;  // CURL_SOCKET_BAD: libcurl tries the next address or fails to connect
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

static char *copy(const char *text) { return text ? strdup(text) : NULL; }

void pb_curl_get(const char *url, const pb_curl_options *options, const pb_curl_callbacks *callbacks,
                 pb_curl_result *result) {
    memset(result, 0, sizeof *result);
    char error[256] = "";
    if (pb_curl_load(error, sizeof error) != 0) {
        result->code = -1;
        snprintf(result->message, sizeof result->message, "%s", error);
        return;
    }
    CURL *easy = curl.easy_init();
    if (!easy) {
        result->code = -1;
        snprintf(result->message, sizeof result->message, "libcurl could not make a transfer.");
        return;
    }
    char buffer[256] = "";
    curl.easy_setopt(easy, OPT_URL, url);
    curl.easy_setopt(easy, OPT_ERRORBUFFER, buffer);
    curl.easy_setopt(easy, OPT_NOSIGNAL, 1L);
    curl.easy_setopt(easy, OPT_PROTOCOLS, (long)(PROTO_HTTP | PROTO_HTTPS));
    curl.easy_setopt(easy, OPT_REDIR_PROTOCOLS, (long)(PROTO_HTTP | PROTO_HTTPS));
    curl.easy_setopt(easy, OPT_FOLLOWLOCATION, 0L);
    curl.easy_setopt(easy, OPT_FAILONERROR, 1L);
    curl.easy_setopt(easy, OPT_NOPROXY, "*");
    curl.easy_setopt(easy, OPT_ACCEPT_ENCODING, "gzip, deflate");
    curl.easy_setopt(easy, OPT_USERAGENT, options->user_agent);
    curl.easy_setopt(easy, OPT_CONNECTTIMEOUT, options->connect_timeout_seconds);
    curl.easy_setopt(easy, OPT_LOW_SPEED_LIMIT, 1L);
    curl.easy_setopt(easy, OPT_LOW_SPEED_TIME, options->stall_seconds);
    curl.easy_setopt(easy, OPT_TIMEOUT_MS, options->total_timeout_ms);
    curl.easy_setopt(easy, OPT_WRITEFUNCTION, on_write);
    curl.easy_setopt(easy, OPT_WRITEDATA, (void *)callbacks);
    curl.easy_setopt(easy, OPT_NOPROGRESS, 0L);
    curl.easy_setopt(easy, OPT_XFERINFOFUNCTION, on_progress);
    curl.easy_setopt(easy, OPT_XFERINFODATA, (void *)callbacks);
    curl.easy_setopt(easy, OPT_OPENSOCKETFUNCTION, on_open_socket);
    curl.easy_setopt(easy, OPT_OPENSOCKETDATA, (void *)callbacks);
    result->code = curl.easy_perform(easy);
    curl.easy_getinfo(easy, INFO_RESPONSE_CODE, &result->status);
    char *text = NULL;
    if (curl.easy_getinfo(easy, INFO_CONTENT_TYPE, &text) == 0) result->content_type = copy(text);
    text = NULL;
    if (curl.easy_getinfo(easy, INFO_REDIRECT_URL, &text) == 0) result->redirect_url = copy(text);
    snprintf(result->message, sizeof result->message, "%s",
             buffer[0] ? buffer : curl.easy_strerror(result->code));
    curl.easy_cleanup(easy);
}

void pb_curl_result_free(pb_curl_result *result) {
    free(result->content_type);
    free(result->redirect_url);
    result->content_type = NULL;
    result->redirect_url = NULL;
}

int pb_curl_parse(const char *base, const char *url, char **whole, char **scheme, char **host, long *port) {
    *whole = *scheme = *host = NULL;
    *port = 0;
    if (pb_curl_load(NULL, 0) != 0) return -1;
    CURLU *handle = curl.url();
    if (!handle) return -1;
    int code = 0;
    if (base) code = curl.url_set(handle, UPART_URL, base, U_NON_SUPPORT_SCHEME);
    if (code == 0) code = curl.url_set(handle, UPART_URL, url, U_NON_SUPPORT_SCHEME);
    char *part = NULL;
    if (code == 0 && (code = curl.url_get(handle, UPART_URL, &part, 0)) == 0) {
        *whole = copy(part);
        curl.free(part);
    }
    part = NULL;
    if (code == 0 && (code = curl.url_get(handle, UPART_SCHEME, &part, 0)) == 0) {
        *scheme = copy(part);
        curl.free(part);
    }
    part = NULL;
    if (code == 0 && curl.url_get(handle, UPART_HOST, &part, 0) == 0) {
        *host = copy(part);
        curl.free(part);
    }
    part = NULL;
    if (code == 0 && curl.url_get(handle, UPART_PORT, &part, U_DEFAULT_PORT) == 0) {
        *port = strtol(part, NULL, 10);
        curl.free(part);
    }
    curl.url_cleanup(handle);
    return code;
}

void pb_curl_free(char *text) { free(text); }
