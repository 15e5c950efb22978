#ifndef PASTEBOARD_CSTATICFOUNDATION_H
#define PASTEBOARD_CSTATICFOUNDATION_H

// What `pb` needs to link the toolchain's static Foundation cleanly (see mktemp.c). Nothing here is for Swift to call.

/// Replaces mktemp(3) for the objects of a link made with `--wrap=mktemp`: fills the trailing "XXXXXX" of `template`
/// with random letters and digits and returns `template`; on failure sets `template[0]` to NUL and errno, as glibc's
/// mktemp does.
char *__wrap_mktemp(char *template);

#endif
