/* SPDX-License-Identifier: MIT */
/* x11_present.c — GL frames into a GL-less X window (see x11_present.h).
 *
 * Per frame: glReadPixels of the framebuffer into one of two pixel buffer
 * objects (asynchronous; a fence marks its end), then the other one, the
 * frame before, is mapped, its rows copied bottom-up (GL's first row is
 * the bottom, X's the top) into the XImage, and the image put into the
 * window. The pixels are read in the visual's channel order, so that the
 * copy is a plain row copy: BGRA for the usual 24-bit TrueColor visual
 * (red mask 0xff0000) on a little-endian image. */
#include "x11_present.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#include <glad/gl.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>

/* GLFW's X11 native access, as glfw3native.h declares it under
 * GLFW_EXPOSE_NATIVE_X11; that header also includes Xrandr's (another
 * -dev package) for calls this file does not make. */
Display *glfwGetX11Display(void);
Window glfwGetX11Window(GLFWwindow *window);

/* How long a read-back may take before the frame counts as lost. */
#define READBACK_TIMEOUT_NS 5000000000ull

struct ds_x11_present {
    Display *display;
    Window window;
    Visual *visual;
    int depth;
    GC gc;
    GLenum read_format;   /* GL_BGRA or GL_RGBA: the visual's byte order */
    uint32_t opaque_bits; /* or'ed into each pixel: alpha for a depth-32 visual */
    int can_shm;          /* the server offers MIT-SHM and shares our byte order */

    int width, height;
    GLuint framebuffer, color, depth_buffer;
    GLuint pixel_buffers[2];
    GLsync fences[2];     /* a read-back in flight into pixel_buffers[i] */
    int next;             /* the buffer this frame is read into */

    XImage *image;
    XShmSegmentInfo shm;
    int shm_attached;
    int put_pending;      /* an XShmPutImage the server may still be reading */
};

/* ---- the image ------------------------------------------------------------ */

/* Set by the error handler while XShmAttach is tried: Xlib's handlers take
 * no user pointer, and a refused attach (a remote server) is reported
 * asynchronously as an X error, which Xlib's default handler would make
 * fatal. */
static int shm_attach_failed;

static int on_attach_error(Display *display, XErrorEvent *event)
{
    (void)display;
    (void)event;
    shm_attach_failed = 1;
    return 0;
}

static void free_image(ds_x11_present *p)
{
    if (!p->image)
        return;
    if (p->shm_attached) {
        XSync(p->display, False); /* the server is done with the segment */
        XShmDetach(p->display, &p->shm);
        XDestroyImage(p->image); /* frees the XImage, not the segment */
        shmdt(p->shm.shmaddr);
        p->shm_attached = 0;
    } else {
        XDestroyImage(p->image); /* and its malloc'ed data */
    }
    p->image = NULL;
    p->put_pending = 0;
}

/* A shared-memory image, or NULL where the server cannot attach one. */
static XImage *shm_image(ds_x11_present *p, int width, int height)
{
    XImage *image = XShmCreateImage(p->display, p->visual, (unsigned)p->depth, ZPixmap, NULL,
                                    &p->shm, (unsigned)width, (unsigned)height);
    if (!image)
        return NULL;
    p->shm.shmid = shmget(IPC_PRIVATE, (size_t)image->bytes_per_line * (size_t)height,
                          IPC_CREAT | 0600);
    if (p->shm.shmid < 0) {
        XDestroyImage(image);
        return NULL;
    }
    p->shm.shmaddr = image->data = shmat(p->shm.shmid, NULL, 0);
    p->shm.readOnly = False;
    int attached = 0;
    if (p->shm.shmaddr != (char *)-1) {
        XSync(p->display, False);
        shm_attach_failed = 0;
        int (*previous)(Display *, XErrorEvent *) = XSetErrorHandler(on_attach_error);
        attached = XShmAttach(p->display, &p->shm) && (XSync(p->display, False), !shm_attach_failed);
        XSetErrorHandler(previous);
    }
    /* Marked for removal now: it goes when both sides have detached, even
     * if the program is killed. */
    shmctl(p->shm.shmid, IPC_RMID, NULL);
    if (!attached) {
        if (p->shm.shmaddr != (char *)-1)
            shmdt(p->shm.shmaddr);
        image->data = NULL;
        XDestroyImage(image);
        return NULL;
    }
    p->shm_attached = 1;
    return image;
}

static ds_status make_image(ds_x11_present *p, int width, int height)
{
    XImage *image = p->can_shm ? shm_image(p, width, height) : NULL;
    if (!image) {
        p->can_shm = 0; /* once refused, always */
        image = XCreateImage(p->display, p->visual, (unsigned)p->depth, ZPixmap, 0, NULL,
                             (unsigned)width, (unsigned)height, 32, 0);
        if (!image)
            return ds_fail(DS_ERR_OUT_OF_MEMORY, "viewer: X11: cannot make a %dx%d image",
                           width, height);
        /* Our byte order: Xlib swaps on XPutImage where the server's differs. */
        image->byte_order = LSBFirst;
        image->data = malloc((size_t)image->bytes_per_line * (size_t)height);
        if (!image->data) {
            XDestroyImage(image);
            return ds_fail(DS_ERR_OUT_OF_MEMORY, "viewer: X11: out of memory for a %dx%d image",
                           width, height);
        }
    }
    p->image = image;
    int bits = image->bits_per_pixel;
    if (bits != 32) {
        free_image(p);
        return ds_fail(DS_ERR_UNSUPPORTED, "viewer: X11: the window's images have %d bits a "
                       "pixel, not 32", bits);
    }
    return DS_OK;
}

/* ---- GL ------------------------------------------------------------------- */

static void free_gl(ds_x11_present *p)
{
    for (int i = 0; i < 2; i++)
        if (p->fences[i]) {
            glDeleteSync(p->fences[i]);
            p->fences[i] = NULL;
        }
    if (p->framebuffer) {
        glDeleteFramebuffers(1, &p->framebuffer);
        glDeleteRenderbuffers(1, &p->color);
        glDeleteRenderbuffers(1, &p->depth_buffer);
        glDeleteBuffers(2, p->pixel_buffers);
    }
    p->framebuffer = p->color = p->depth_buffer = 0;
    p->pixel_buffers[0] = p->pixel_buffers[1] = 0;
}

static ds_status make_gl(ds_x11_present *p, int width, int height)
{
    glCreateRenderbuffers(1, &p->color);
    glNamedRenderbufferStorage(p->color, GL_RGBA8, width, height);
    glCreateRenderbuffers(1, &p->depth_buffer);
    glNamedRenderbufferStorage(p->depth_buffer, GL_DEPTH_COMPONENT24, width, height);
    glCreateFramebuffers(1, &p->framebuffer);
    glNamedFramebufferRenderbuffer(p->framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, p->color);
    glNamedFramebufferRenderbuffer(p->framebuffer, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER,
                                   p->depth_buffer);
    glCreateBuffers(2, p->pixel_buffers);
    for (int i = 0; i < 2; i++)
        glNamedBufferStorage(p->pixel_buffers[i], 4 * (GLsizeiptr)width * height, NULL,
                             GL_MAP_READ_BIT | GL_CLIENT_STORAGE_BIT);
    if (glCheckNamedFramebufferStatus(p->framebuffer, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE ||
        glGetError() != GL_NO_ERROR) {
        free_gl(p);
        return ds_fail(DS_ERR_GL, "viewer: cannot make a %dx%d framebuffer for the window",
                       width, height);
    }
    return DS_OK;
}

/* ---- the interface -------------------------------------------------------- */

ds_status ds_x11_present_create(void *window, ds_x11_present **dest)
{
    *dest = NULL;
    Display *display = glfwGetX11Display();
    Window x_window = glfwGetX11Window((GLFWwindow *)window);
    if (!display || !x_window)
        return ds_fail(DS_ERR_UNSUPPORTED, "viewer: the window is not an X11 window");
    XWindowAttributes attributes;
    if (!XGetWindowAttributes(display, x_window, &attributes))
        return ds_fail(DS_ERR_UNSUPPORTED, "viewer: X11: cannot read the window's attributes");
    Visual *visual = attributes.visual;
    GLenum format = 0;
    if (visual->class == TrueColor && visual->red_mask == 0xff0000 &&
        visual->green_mask == 0xff00 && visual->blue_mask == 0xff)
        format = GL_BGRA; /* bytes B, G, R, X in a little-endian pixel */
    else if (visual->class == TrueColor && visual->red_mask == 0xff &&
             visual->green_mask == 0xff00 && visual->blue_mask == 0xff0000)
        format = GL_RGBA;
    if (!format || (attributes.depth != 24 && attributes.depth != 32))
        return ds_fail(DS_ERR_UNSUPPORTED, "viewer: X11: the window's visual is not 24-bit "
                       "TrueColor (depth %d, red mask 0x%lx)", attributes.depth, visual->red_mask);
    ds_x11_present *p = calloc(1, sizeof *p);
    if (!p)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "viewer: out of memory");
    p->display = display;
    p->window = x_window;
    p->visual = visual;
    p->depth = attributes.depth;
    p->read_format = format;
    p->opaque_bits = attributes.depth == 32 ? 0xff000000u : 0u;
    p->can_shm = XShmQueryExtension(display) && ImageByteOrder(display) == LSBFirst;
    p->gc = XCreateGC(display, x_window, 0, NULL);
    *dest = p;
    return DS_OK;
}

void ds_x11_present_destroy(ds_x11_present *p)
{
    if (!p)
        return;
    free_gl(p);
    free_image(p);
    XFreeGC(p->display, p->gc);
    XFlush(p->display);
    free(p);
}

ds_status ds_x11_present_resize(ds_x11_present *p, int width, int height)
{
    if (width <= 0 || height <= 0)
        return ds_fail(DS_ERR_INVALID_ARG, "viewer: window size %dx%d", width, height);
    if (width == p->width && height == p->height && p->framebuffer)
        return DS_OK;
    free_gl(p);
    free_image(p);
    p->width = p->height = 0;
    ds_status status = make_gl(p, width, height);
    if (status == DS_OK && (status = make_image(p, width, height)) != DS_OK)
        free_gl(p);
    if (status != DS_OK)
        return status;
    p->width = width;
    p->height = height;
    p->next = 0;
    return DS_OK;
}

unsigned ds_x11_present_framebuffer(const ds_x11_present *p) { return p->framebuffer; }

const char *ds_x11_present_method(const ds_x11_present *p)
{
    return p->can_shm ? "MIT-SHM" : "XPutImage";
}

/* Copies the mapped frame into the image, top row first. */
static void copy_rows(ds_x11_present *p, const uint8_t *pixels)
{
    size_t row = 4 * (size_t)p->width;
    for (int y = 0; y < p->height; y++) {
        const uint8_t *source = pixels + row * (size_t)(p->height - 1 - y);
        uint8_t *dest = (uint8_t *)p->image->data + (size_t)p->image->bytes_per_line * (size_t)y;
        if (!p->opaque_bits) {
            memcpy(dest, source, row);
        } else {
            for (int x = 0; x < p->width; x++) {
                uint32_t pixel;
                memcpy(&pixel, source + 4 * x, 4);
                pixel |= p->opaque_bits;
                memcpy(dest + 4 * x, &pixel, 4);
            }
        }
    }
}

ds_status ds_x11_present_frame(ds_x11_present *p)
{
    if (!p->framebuffer)
        return DS_OK;
    int slot = p->next, previous = 1 - slot;
    /* This frame into slot's buffer; the fence says when the GPU has
     * written it. The pack binding goes back to 0: the renderer's reads
     * into client memory expect none. */
    glBindFramebuffer(GL_READ_FRAMEBUFFER, p->framebuffer);
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, p->pixel_buffers[slot]);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, p->width, p->height, p->read_format, GL_UNSIGNED_BYTE, NULL);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    if (p->fences[slot])
        glDeleteSync(p->fences[slot]);
    p->fences[slot] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glFlush();
    p->next = previous;
    if (!p->fences[previous])
        return DS_OK; /* the first frame at this size: the window shows it next time */

    /* The frame before: its read-back had this frame's drawing to finish. */
    GLenum waited = glClientWaitSync(p->fences[previous], GL_SYNC_FLUSH_COMMANDS_BIT,
                                     READBACK_TIMEOUT_NS);
    glDeleteSync(p->fences[previous]);
    p->fences[previous] = NULL;
    if (waited != GL_ALREADY_SIGNALED && waited != GL_CONDITION_SATISFIED)
        return ds_fail(DS_ERR_GL, "viewer: a frame's read-back for the window did not complete");
    const uint8_t *pixels = glMapNamedBufferRange(p->pixel_buffers[previous], 0,
                                                  4 * (GLsizeiptr)p->width * p->height,
                                                  GL_MAP_READ_BIT);
    if (!pixels)
        return ds_fail(DS_ERR_GL, "viewer: cannot map a frame's read-back for the window");
    /* The shared segment is the server's until it has drawn the last put. */
    if (p->put_pending) {
        XSync(p->display, False);
        p->put_pending = 0;
    }
    copy_rows(p, pixels);
    glUnmapNamedBuffer(p->pixel_buffers[previous]);
    if (p->shm_attached) {
        XShmPutImage(p->display, p->window, p->gc, p->image, 0, 0, 0, 0, (unsigned)p->width,
                     (unsigned)p->height, False);
        p->put_pending = 1;
    } else {
        XPutImage(p->display, p->window, p->gc, p->image, 0, 0, 0, 0, (unsigned)p->width,
                  (unsigned)p->height);
    }
    XFlush(p->display);
    return DS_OK;
}
