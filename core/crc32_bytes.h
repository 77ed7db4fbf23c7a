// core/crc32_bytes.h — zlib's CRC-32 of a buffer of any size (zlib's crc32 takes at most
// UINT_MAX bytes a call): the one helper the tensor files and the user cache checksum with.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

// CRC-32 of n bytes at data, continuing crc (0 to start).
static inline uint32_t crc32_bytes(uint32_t crc, const void *data, size_t n) {
    const unsigned char *p = data;
    while (n > 0) {
        uInt chunk = n > ((size_t)1 << 30) ? (uInt)1 << 30 : (uInt)n;
        crc = (uint32_t)crc32(crc, p, chunk);
        p += chunk, n -= chunk;
    }
    return crc;
}
