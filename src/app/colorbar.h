/* SPDX-License-Identifier: MIT */
/* colorbar.h — the heatmap's colour bar with its scale and units, drawn
 * into an RGBA8 image on the host (the --diff-dir PNGs): a strip of the
 * colour map (ds_image_metrics_colormap) from 0 to `levels`, tick labels
 * at 0, a quarter, half, three quarters and "levels+", and the units
 * ("largest channel error, levels of 255") above it, on a dark panel in
 * the image's lower left corner. An image too small for it is left as it
 * was (returns 0; 1 when drawn). */
#ifndef DS_COLORBAR_H
#define DS_COLORBAR_H

#include <stdint.h>

int ds_colorbar_draw(uint8_t *rgba, int width, int height, int levels);

#endif
