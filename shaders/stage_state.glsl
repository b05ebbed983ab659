// SPDX-License-Identifier: MIT
// stage_state.glsl — what the GL stages' shaders share, declared once
// (gl_stages.c puts it before each stage shader's own source): the state
// buffer (gl_stages.c's STATE_WORDS) and tiles.h's tile codes.
layout(std430, binding = 5) coherent buffer State {
    uint visible[2];    // the cull's count, by frame parity
    uint keys_done;     // workgroups of this pass finished
    uint spare[5];
    // Two halves, each BIN_SPANS rows of DS_TILES_MAX words: row s holds
    // each tile's entries in count workgroups [s * BIN_SPAN, s * BIN_SPAN +
    // BIN_SPAN) (tiles_count adds them; tiles_scatter zeroes the other half).
    uint span_sums[2 * BIN_SPANS * DS_TILES_MAX];
    // Row b: each tile's entries in count workgroup b's chunk.
    uint table[];
} state;

// tiles.h's tile codes in the sort values of a binned frame (shift: the
// codes' first bit, 0 for none): primitive p's value carries the tile of
// its rectangle when that is one tile, else all ones (several tiles or
// none), as ds_tiles_code_value.
uint tiles_code_value(uint p, uint rect, int columns, int shift)
{
    if (shift == 0)
        return p;
    uint c0 = rect & 0xFFu, c1 = rect >> 8 & 0xFFu, r0 = rect >> 16 & 0xFFu, r1 = rect >> 24;
    uint code = c0 == c1 && r0 == r1 ? r0 * uint(columns) + c0 : 0xFFFFFFFFu >> uint(shift);
    return p | code << uint(shift);
}

// The primitive of a sort value (ds_tiles_value_primitive).
uint tiles_value_primitive(uint value, int shift)
{
    return shift == 0 ? value : value & ((1u << uint(shift)) - 1u);
}

// Whether a sort value's code names one tile, and that tile's rectangle;
// for the several code (or no codes) the rectangle is the keys pass's.
bool tiles_code_rect(uint value, int columns, int shift, out uint rect)
{
    uint code = shift == 0 ? 0xFFFFFFFFu : value >> uint(shift);
    rect = 0u;
    if (shift == 0 || code == 0xFFFFFFFFu >> uint(shift))
        return false;
    uint row = code / uint(columns), column = code - row * uint(columns);
    rect = column | column << 8 | row << 16 | row << 24;
    return true;
}
