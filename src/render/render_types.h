/* render_types.h — the renderer's modes (primitive, triangle key, interop,
 * screen tiles) as plain enums: the app parses them into ds_options and the
 * render kernels read them, so they live below both. */
#ifndef DS_RENDER_TYPES_H
#define DS_RENDER_TYPES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ds_primitive {
    DS_PRIMITIVE_TRIANGLES = 0,
    DS_PRIMITIVE_POINTS
} ds_primitive;

typedef enum ds_triangle_key {
    DS_TRIANGLE_KEY_FARTHEST = 0, /* max of the three vertex distances */
    DS_TRIANGLE_KEY_MEAN,         /* mean of the three vertex distances */
    DS_TRIANGLE_KEY_CENTROID,     /* distance to the centroid */
    DS_TRIANGLE_KEY_COUNT
} ds_triangle_key;

typedef enum ds_interop_mode {
    DS_INTEROP_AUTO = 0,  /* external memory where supported, else map */
    DS_INTEROP_MAP,       /* cudaGraphicsMapResources each frame */
    DS_INTEROP_EXTERNAL,  /* CUDA VMM memory imported with GL_EXT_memory_object_fd */
    DS_INTEROP_NONE       /* CPU path: host sort and buffer uploads */
} ds_interop_mode;

/* Screen tiles (renderer.h). AUTO: on with CUDA, off on the CPU path,
 * where binning on the host costs more than a software rasteriser's draw
 * gains. */
typedef enum ds_tiles_mode {
    DS_TILES_AUTO = 0,
    DS_TILES_ON,  /* bin the sorted primitives by screen tile */
    DS_TILES_OFF  /* one draw of the sorted list */
} ds_tiles_mode;

#ifdef __cplusplus
}
#endif
#endif
