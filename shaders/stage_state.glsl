// stage_state.glsl — the GL stages' shared state buffer (gl_stages.c's
// STATE_WORDS), declared once: gl_stages.c puts it before each stage
// shader's own source.
layout(std430, binding = 5) coherent buffer State {
    uint visible[2];    // the cull's count, by frame parity
    uint keys_done;     // workgroups of this pass finished
    uint scan_done;     // tiles_scan.comp.glsl's
    uint overflow;
    uint spare[3];
    uint tile_total[DS_TILES_MAX];
    uint tile_first[DS_TILES_MAX];
    uint table[];
} state;
