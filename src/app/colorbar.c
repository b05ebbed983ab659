/* SPDX-License-Identifier: MIT */
/* colorbar.c — colorbar.h. Text comes from stb_easy_font (Debian's
 * libstb-dev), whose glyphs are axis-aligned quads: each is filled on the
 * host, at twice its size so that it stays legible in a 1080p picture. */
#include "colorbar.h"

#include <stdio.h>
#include <string.h>

#include <stb/stb_easy_font.h>

#include "image_metrics.h"

#define BAR_WIDTH 256   /* at most: one column per step of the colour map's t */
#define BAR_HEIGHT 14
#define MARGIN 8

static void fill(uint8_t *rgba, int width, int height, int x0, int y0, int x1, int y1,
                 const uint8_t rgb[3], int blend)
{
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < height; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < width; x++) {
            uint8_t *p = rgba + 4 * ((size_t)y * (size_t)width + (size_t)x);
            for (int c = 0; c < 3; c++)
                p[c] = blend ? (uint8_t)((p[c] + 3 * rgb[c]) / 4) : rgb[c];
            p[3] = 255;
        }
}

/* Text with its top left at x, y, each glyph pixel `scale` pixels. */
static void text(uint8_t *rgba, int width, int height, int x, int y, int scale,
                 const char *string)
{
    const int TEXT_SCALE = scale;
    static char buffer[64 * 1024]; /* stb_easy_font's quads: 64 bytes each */
    static const uint8_t white[3] = {235, 235, 235};
    int quads = stb_easy_font_print(0.0f, 0.0f, (char *)string, NULL, buffer, sizeof buffer);
    const float *v = (const float *)buffer;
    for (int q = 0; q < quads; q++, v += 16) {
        /* Vertices 0 and 2 are opposite corners (x, y, z, colour each). */
        int qx0 = (int)v[0], qy0 = (int)v[1], qx1 = (int)v[8], qy1 = (int)v[9];
        fill(rgba, width, height, x + TEXT_SCALE * qx0, y + TEXT_SCALE * qy0,
             x + TEXT_SCALE * qx1, y + TEXT_SCALE * qy1, white, 0);
    }
}

int ds_colorbar_draw(uint8_t *rgba, int width, int height, int levels)
{
    /* Twice the glyphs' size in a large picture; in a small one the
     * glyphs' own and, where the words do not fit, fewer words. */
    const int TEXT_SCALE = width >= 960 ? 2 : 1, LINE_HEIGHT = 8 * TEXT_SCALE;
    const char *units = "largest channel error, levels of 255";
    if (TEXT_SCALE * stb_easy_font_width((char *)units) + 2 * MARGIN > width)
        units = "error, levels of 255";
    int text_width = TEXT_SCALE * stb_easy_font_width((char *)units);
    int bar_width = width - 2 * MARGIN - 24 < BAR_WIDTH ? width - 2 * MARGIN - 24 : BAR_WIDTH;
    int panel_width = 2 * MARGIN + (text_width > bar_width + 24 ? text_width : bar_width + 24);
    int panel_height = 2 * MARGIN + 2 * LINE_HEIGHT + BAR_HEIGHT + 6;
    if (width < panel_width || height < 2 * panel_height || bar_width < 32 || levels <= 0)
        return 0;
    int x0 = 0, y0 = height - panel_height;
    static const uint8_t panel[3] = {16, 16, 20};
    fill(rgba, width, height, x0, y0, x0 + panel_width, height, panel, 1);
    text(rgba, width, height, x0 + MARGIN, y0 + MARGIN, TEXT_SCALE, units);
    int bar_y = y0 + MARGIN + LINE_HEIGHT + 3;
    for (int i = 0; i < bar_width; i++) {
        uint8_t rgb[3];
        ds_image_metrics_colormap((float)i / (float)(bar_width - 1), rgb);
        fill(rgba, width, height, x0 + MARGIN + i, bar_y, x0 + MARGIN + i + 1,
             bar_y + BAR_HEIGHT, rgb, 0);
    }
    for (int k = 0; k <= 4; k++) {
        char label[16];
        int value = levels * k / 4;
        snprintf(label, sizeof label, k == 4 ? "%d+" : "%d", value);
        int at = x0 + MARGIN + (bar_width - 1) * k / 4;
        static const uint8_t tick[3] = {235, 235, 235};
        fill(rgba, width, height, at, bar_y + BAR_HEIGHT, at + 1, bar_y + BAR_HEIGHT + 3, tick, 0);
        int label_width = TEXT_SCALE * stb_easy_font_width(label);
        int lx = at - (k == 0 ? 0 : k == 4 ? label_width - 1 : label_width / 2);
        text(rgba, width, height, lx, bar_y + BAR_HEIGHT + 4, TEXT_SCALE, label);
    }
    return 1;
}
