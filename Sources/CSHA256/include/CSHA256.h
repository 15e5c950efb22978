#ifndef PASTEBOARD_CSHA256_H
#define PASTEBOARD_CSHA256_H

#include <stddef.h>
#include <stdint.h>

// SHA-256 block compression with the x86 SHA extensions (SHA-NI), for the Swift SHA256 in PasteboardHistory, which
// keeps its own portable compression for CPUs without them.

/// 1 when this CPU has the SHA extensions and SSE4.1 (CPUID leaf 7 EBX bit 29, leaf 1 ECX bits 9 and 19), else 0;
/// always 0 on other architectures.
int pb_sha256_hardware_available(void);

/// Compresses `count` consecutive 64-byte blocks at `blocks` into `state` (the eight working words H0…H7, in that
/// order, native endianness), as FIPS 180-4 section 6.2.2 defines. Call only when pb_sha256_hardware_available()
/// returned 1.
void pb_sha256_compress_hardware(uint32_t state[8], const uint8_t *blocks, size_t count);

#endif
