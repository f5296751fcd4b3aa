/*
 * Wire emitter: one text record per line,
 *   @HPX <seq> <TYPE>[ <key>=<value>]... *<crc32 as 8 hex digits>\n
 * The CRC-32 (IEEE, as zlib) covers every byte before " *". Values are decimal (signed or not),
 * 0x-hex, hex bytes or percent-encoded text. The protocol is documented in docs/wire-protocol.md.
 */
#ifndef HPX_WIRE_H
#define HPX_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define HPX_WIRE_VERSION 2

void hpx_wire_begin(const char *type);
void hpx_wire_u64(const char *key, uint64_t value);
void hpx_wire_i32(const char *key, int32_t value);
void hpx_wire_i64(const char *key, int64_t value);
void hpx_wire_hex32(const char *key, uint32_t value);
void hpx_wire_str(const char *key, const char *text);
void hpx_wire_bytes(const char *key, const uint8_t *data, size_t size);
void hpx_wire_end(void);
/* Start a fresh line (used by the fault handler, which may interrupt a record). */
void hpx_wire_newline(void);
uint32_t hpx_wire_records(void);
/* CRC-32/IEEE (as zlib) of data, continuing from crc (start with 0). */
uint32_t hpx_wire_crc32(uint32_t crc, const uint8_t *data, size_t size);
/* Plain text between records: a record always starts on a fresh line, and text that would
 * look like a record ("@HPX") has its '@' replaced by '?'. */
void hpx_wire_text(const char *text);

#endif
