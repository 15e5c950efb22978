// Linked statically, the toolchain's FoundationEssentials makes GNU linkers print
//
//     libFoundationEssentials.a(Data+Writing.swift.o): ... warning: the use of `mktemp' is dangerous, better use
//     `mkstemp' or `mkdtemp'
//
// for every executable. The cause: glibc tags mktemp(3) with a link-time warning (a `.gnu.warning.mktemp` section),
// which bfd and gold print whenever an object in the link refers to mktemp, and swift-foundation's atomic
// `Data.write` names its temporary file with mktemp (Data+Writing.swift, createTemporaryFile). With the shared
// Foundation that reference sits inside libFoundationEssentials.so and no warning appears; with the static one it is
// in our link. The object comes with every use of `Data.write` (pb's own atomic writes among them) and with
// FoundationEssentials' file operations, so no Swift code of ours can avoid it. Upstream:
// swiftlang/swift-foundation#1358 (open).
//
// Foundation's use is safe: it opens the name with O_CREAT | O_EXCL and tries another name on EEXIST, which is what
// mkstemp does inside. So the pb executable is linked with `--wrap=mktemp`, sending Foundation's calls here: this
// generates the name from getrandom(2) and leaves the exclusive creation to the caller, as before. No call to glibc's
// mktemp remains in the binary, and the linker has nothing to warn about. Remove this file and the flag once
// Foundation stops calling mktemp.

#include "CStaticFoundation.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

char *__wrap_mktemp(char *template) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t length = strlen(template);
    // glibc's rule: the last six characters must be "XXXXXX".
    if (length < 6 || strcmp(template + length - 6, "XXXXXX") != 0) {
        template[0] = '\0';
        errno = EINVAL;
        return template;
    }
    unsigned char bytes[6];
    size_t filled = 0;
    while (filled < sizeof bytes) {
        ssize_t count = getrandom(bytes + filled, sizeof bytes - filled, 0);
        if (count < 0) {
            if (errno == EINTR) continue;
            template[0] = '\0';
            return template;  // errno from getrandom
        }
        filled += (size_t)count;
    }
    for (size_t index = 0; index < sizeof bytes; index++) {
        // 62 letters and digits: the slight bias of `% 62` costs nothing here, since the caller's O_EXCL open
        // settles every collision.
        template[length - 6 + index] = alphabet[bytes[index] % (sizeof alphabet - 1)];
    }
    return template;
}
