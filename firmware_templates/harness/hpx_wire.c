/* Wire emitter (see hpx_wire.h): formats without printf, which newlib-nano limits. */
#include "hpx_wire.h"

#include "hpx_platform.h"

static uint32_t wire_seq;
static uint32_t wire_crc;
static int text_line_open;

static uint32_t crc32_update(uint32_t crc, uint8_t byte) {
    crc ^= byte;
    for (int bit = 0; bit < 8; bit++) {
        crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc;
}

static void put(char c) {
    wire_crc = crc32_update(wire_crc, (uint8_t)c);
    hpx_platform_putc(c);
}

static void put_text(const char *text) {
    while (*text) {
        put(*text++);
    }
}

static void put_u64(uint64_t value) {
    char digits[21];
    int n = 0;
    do {
        digits[n++] = (char)('0' + (int)(value % 10u));
        value /= 10u;
    } while (value != 0u);
    while (n > 0) {
        put(digits[--n]);
    }
}

static const char hex_digits[] = "0123456789abcdef";

static void put_hex_byte(uint8_t byte) {
    put(hex_digits[byte >> 4]);
    put(hex_digits[byte & 0xFu]);
}

static void put_key(const char *key) {
    put(' ');
    put_text(key);
    put('=');
}

void hpx_wire_begin(const char *type) {
    if (text_line_open) {
        hpx_platform_putc('\n');
        text_line_open = 0;
    }
    wire_crc = 0xFFFFFFFFu;
    put_text("@HPX ");
    put_u64(wire_seq++);
    put(' ');
    put_text(type);
}

void hpx_wire_u64(const char *key, uint64_t value) {
    put_key(key);
    put_u64(value);
}

void hpx_wire_i32(const char *key, int32_t value) {
    put_key(key);
    if (value < 0) {
        put('-');
        put_u64((uint64_t)(-(int64_t)value));
    } else {
        put_u64((uint64_t)value);
    }
}

void hpx_wire_i64(const char *key, int64_t value) {
    put_key(key);
    if (value < 0) {
        put('-');
        put_u64(0u - (uint64_t)value);
    } else {
        put_u64((uint64_t)value);
    }
}

void hpx_wire_hex32(const char *key, uint32_t value) {
    put_key(key);
    put_text("0x");
    for (int shift = 24; shift >= 0; shift -= 8) {
        put_hex_byte((uint8_t)(value >> shift));
    }
}

static int is_plain(char c) {
    return c > ' ' && c < 0x7f && c != '%' && c != '*' && c != '=';
}

void hpx_wire_str(const char *key, const char *text) {
    put_key(key);
    if (text == 0) {
        return; /* empty value */
    }
    for (; *text; text++) {
        if (is_plain(*text)) {
            put(*text);
        } else {
            put('%');
            put_hex_byte((uint8_t)*text);
        }
    }
}

void hpx_wire_bytes(const char *key, const uint8_t *data, size_t size) {
    put_key(key);
    for (size_t i = 0; i < size; i++) {
        put_hex_byte(data[i]);
    }
}

void hpx_wire_end(void) {
    uint32_t crc = ~wire_crc;
    hpx_platform_putc(' ');
    hpx_platform_putc('*');
    for (int shift = 28; shift >= 0; shift -= 4) {
        hpx_platform_putc(hex_digits[(crc >> shift) & 0xFu]);
    }
    hpx_platform_putc('\n');
}

void hpx_wire_newline(void) {
    hpx_platform_putc('\n');
}

void hpx_wire_text(const char *text) {
    for (; *text; text++) {
        char c = *text;
        if (c == '@' && text[1] == 'H' && text[2] == 'P' && text[3] == 'X') {
            c = '?';
        }
        hpx_platform_putc(c);
        text_line_open = c != '\n';
    }
}

uint32_t hpx_wire_crc32(uint32_t crc, const uint8_t *data, size_t size) {
    crc = ~crc;
    for (size_t i = 0; i < size; i++) {
        crc = crc32_update(crc, data[i]);
    }
    return ~crc;
}

uint32_t hpx_wire_records(void) {
    return wire_seq;
}
