// stage_state.glsl — the GL stages' shared state buffer (gl_stages.c's
// STATE_WORDS), declared once: gl_stages.c puts it before each stage
// shader's own source.
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
