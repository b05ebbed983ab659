/* SPDX-License-Identifier: MIT */
/* parse_util.h — private number scanning shared by the PLY and OBJ loaders.
 *
 * Every scanner works on a bounded buffer [p, end) that is NOT
 * NUL-terminated (it is usually a read-only file mapping), never reads at or
 * past `end`, and returns the position just after what it consumed, or NULL
 * when no number starts at p.
 *
 * parse_double is the ASCII hot loop of both loaders, so it avoids strtod in
 * the common case: up to 19 significant digits are gathered into an integer
 * and, when that integer is at most 2^53 and the decimal exponent lies in
 * [-22, 22], one multiplication or division by an exactly representable power
 * of ten gives the correctly rounded double (Clinger's fast path). Rounding
 * that double to float lands on the float nearest to the exact value or on
 * its neighbour, i.e. within 1 ulp of strtof. Everything else (longer
 * mantissas, large exponents, "inf", "nan") falls back to strtod on a
 * bounded, NUL-terminated copy of the token.
 */
#ifndef DS_PARSE_UTIL_H
#define DS_PARSE_UTIL_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Longest token the strtod fallback accepts; real numbers are far shorter. */
#define PARSE_MAX_NUMBER_CHARS 256

/* Every integer above this is "out of range" for both loaders; keeping
 * accumulation below it avoids signed overflow on absurdly long digit runs. */
#define PARSE_INT_SATURATION 1000000000000000000LL

static inline int is_digit(char c) { return (unsigned char)(c - '0') < 10u; }

/* Separators inside a line ('\n' ends the line and is handled apart). */
static inline int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Narrows a double without undefined behaviour for values beyond float's
 * range: they become infinities. The loaders test is_beyond_float() first,
 * so that a finite 1e300 is reported as out of range, not as infinite. */
static inline float narrow_to_float(double value)
{
    if (value > FLT_MAX)
        return INFINITY;
    if (value < -FLT_MAX)
        return -INFINITY;
    return (float)value;
}

/* A finite double that no float can hold (it would narrow to infinity). */
static inline int is_beyond_float(double value)
{
    return (value > FLT_MAX || value < -FLT_MAX) && isfinite(value);
}

static inline const char *parse_double_slow(const char *start, const char *end, double *dest)
{
    char copy[PARSE_MAX_NUMBER_CHARS + 1];
    size_t available = (size_t)(end - start);
    size_t length = available < PARSE_MAX_NUMBER_CHARS ? available : PARSE_MAX_NUMBER_CHARS;
    memcpy(copy, start, length);
    copy[length] = '\0';
    char *stop = NULL;
    double value = strtod(copy, &stop);
    /* strtod skips leading white space; a token never starts with it. */
    if (stop == copy || copy[0] == ' ' || copy[0] == '\t' || copy[0] == '\n' || copy[0] == '\r' ||
        copy[0] == '\v' || copy[0] == '\f')
        return NULL;
    if ((size_t)(stop - copy) == PARSE_MAX_NUMBER_CHARS && available > PARSE_MAX_NUMBER_CHARS)
        return NULL; /* longer than any sane number: refuse rather than cut */
    *dest = value;
    return start + (stop - copy);
}

/* Parses a decimal floating-point number (optional sign, digits with an
 * optional '.', optional exponent; also inf/nan through strtod) into the
 * nearest double. */
static inline const char *parse_double(const char *p, const char *end, double *dest)
{
    static const double exact_pow10[23] = {
        1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    };
    const char *start = p;
    int negative = 0;
    if (p < end && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        p++;
    }
    uint64_t mantissa = 0;
    int digits = 0;   /* significant digits kept in mantissa */
    int exponent = 0; /* decimal exponent applied to mantissa */
    int lost = 0;     /* a non-zero digit did not fit in mantissa */
    int seen = 0;
    while (p < end && is_digit(*p)) {
        if (digits < 19) {
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
            digits += mantissa != 0;
        } else {
            if (exponent < 100000)
                exponent++;
            lost |= *p != '0';
        }
        p++;
        seen = 1;
    }
    if (p < end && *p == '.') {
        p++;
        while (p < end && is_digit(*p)) {
            if (digits < 19) {
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
                digits += mantissa != 0;
                if (exponent > -100000)
                    exponent--;
            } else {
                lost |= *p != '0';
            }
            p++;
            seen = 1;
        }
    }
    if (!seen)
        return parse_double_slow(start, end, dest); /* "inf", "nan" or nothing */
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        int exponent_negative = 0;
        if (q < end && (*q == '-' || *q == '+')) {
            exponent_negative = *q == '-';
            q++;
        }
        if (q < end && is_digit(*q)) {
            int written = 0;
            while (q < end && is_digit(*q)) {
                if (written < 100000)
                    written = written * 10 + (*q - '0');
                q++;
            }
            exponent += exponent_negative ? -written : written;
            p = q;
        }
    }
    double value;
    if (mantissa == 0 && !lost) {
        value = 0.0;
    } else if (!lost && mantissa <= (UINT64_C(1) << 53) && exponent >= -22 && exponent <= 22) {
        value = (double)mantissa;
        value = exponent < 0 ? value / exact_pow10[-exponent] : value * exact_pow10[exponent];
    } else {
        return parse_double_slow(start, end, dest);
    }
    *dest = negative ? -value : value;
    return p;
}

/* parse_double narrowed to float; values beyond float's range become
 * infinities (callers that must tell them apart use parse_double). */
static inline const char *parse_float(const char *p, const char *end, float *dest)
{
    double value = 0.0;
    const char *after = parse_double(p, end, &value);
    if (after)
        *dest = narrow_to_float(value);
    return after;
}

/* Parses a decimal integer with optional sign. Magnitudes beyond
 * PARSE_INT_SATURATION saturate there (callers range-check the result). */
static inline const char *parse_int(const char *p, const char *end, int64_t *dest)
{
    int negative = 0;
    if (p < end && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        p++;
    }
    if (p >= end || !is_digit(*p))
        return NULL;
    int64_t value = 0;
    while (p < end && is_digit(*p)) {
        value = value < PARSE_INT_SATURATION / 10 ? value * 10 + (*p - '0') : PARSE_INT_SATURATION;
        p++;
    }
    *dest = negative ? -value : value;
    return p;
}

/* Copies up to a short run of the non-blank text at p into `dest` (size >=
 * 2), replacing unprintable bytes, for error messages. */
static inline const char *token_preview(const char *p, const char *end, char *dest, size_t size)
{
    size_t n = 0;
    while (p < end && n + 1 < size && !is_blank(*p) && *p != '\n') {
        unsigned char c = (unsigned char)*p++;
        dest[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (n == 0 && size > 1 && p < end)
        dest[n++] = '?';
    dest[n] = '\0';
    return dest;
}

#endif
