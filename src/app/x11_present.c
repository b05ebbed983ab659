/* SPDX-License-Identifier: MIT */
/* x11_present.c — GL frames into a GL-less X window (see x11_present.h).
 *
 * Two threads. The GL thread (the caller's, whose context is current),
 * per frame: glReadPixels of the framebuffer into one of three pixel
 * buffer objects (asynchronous; a fence marks its end), then a wait for
 * the frame before's fence, and that frame's pixels handed to the worker.
 * The worker copies the rows bottom-up (GL's first row is the bottom,
 * X's the top) into the XImage and puts the image into the window, while
 * the GL thread goes on to the next frame: the copy (about 8 MB at
 * 1920x1080) and the X round trips no longer hold up the next frame's
 * submission, so the GPU need not go idle while the host copies.
 *
 * The buffers are mapped once, persistent and coherent, so the worker
 * makes no GL call: a coherent buffer's GPU writes are visible to the
 * CPU once a fence after them has signalled. A frame that is ready
 * while the worker still puts the one before is dropped (VirtualGL's
 * "frame spoiling"): the render loop never waits for the copy.
 *
 * The pixels are read in the visual's channel order, so that the copy is
 * a plain row copy: BGRA for the usual 24-bit TrueColor visual (red mask
 * 0xff0000) on a little-endian image.
 *
 * Xlib from two threads: the worker's XSync, XShmPutImage, XPutImage and
 * XFlush go to GLFW's display while the GL thread's GLFW calls (events)
 * use it too. That needs XInitThreads() before the display is opened:
 * GLFW's X11 backend calls it in glfwInit, just before XOpenDisplay
 * (_glfwPlatformInit in x11_init.c, GLFW 3.3.8 as Debian 12 ships it),
 * and libX11 1.8 calls it itself when loaded. Each call then holds the
 * display's lock; the worker makes no sequence of calls that needs
 * holding it across calls. The GL thread's own X calls here (the image's
 * making and freeing, in resize and destroy) come only once the worker is
 * idle. */
#include "x11_present.h"

#include <pthread.h>
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

/* Pixel buffers: one the GPU reads this frame into, one holding the frame
 * before (its fence pending), one the worker may still copy from. */
#define PIXEL_BUFFERS 3

struct ds_x11_present {
    /* Set at create, read by both threads. */
    Display *display;
    Window window;
    Visual *visual;
    int depth;
    GC gc;
    GLenum read_format;   /* GL_BGRA or GL_RGBA: the visual's byte order */
    uint32_t opaque_bits; /* or'ed into each pixel: alpha for a depth-32 visual */

    /* The GL thread's. The size and the mapped pointers change only in
     * resize, with the worker idle; the lock below orders those writes
     * before the worker's next reads. */
    int can_shm;          /* the server offers MIT-SHM and shares our byte order */
    int width, height;
    GLuint framebuffer, color, depth_buffer;
    GLuint pixel_buffers[PIXEL_BUFFERS];
    const uint8_t *pixels[PIXEL_BUFFERS]; /* each buffer, mapped persistent and coherent */
    GLsync fence;         /* the read-back of the frame before, in flight */
    int fenced;           /* the buffer that fence guards, or -1 */

    /* The worker's while it puts a frame; the GL thread's (resize,
     * destroy) while it is idle. */
    XImage *image;
    XShmSegmentInfo shm;
    int shm_attached;
    int put_pending;      /* an XShmPutImage the server may still be reading */

    /* The hand-over, under lock. */
    pthread_t worker;
    pthread_mutex_t lock;
    pthread_cond_t handed; /* a frame (or quit) for the worker */
    pthread_cond_t idle;   /* the worker has put its frame */
    int putting;           /* the buffer the worker copies from, or -1 */
    int quit;
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

/* With the worker idle: deleting a buffer unmaps it. */
static void free_gl(ds_x11_present *p)
{
    if (p->fence)
        glDeleteSync(p->fence);
    p->fence = NULL;
    p->fenced = -1;
    if (p->framebuffer) {
        glDeleteFramebuffers(1, &p->framebuffer);
        glDeleteRenderbuffers(1, &p->color);
        glDeleteRenderbuffers(1, &p->depth_buffer);
        glDeleteBuffers(PIXEL_BUFFERS, p->pixel_buffers);
    }
    p->framebuffer = p->color = p->depth_buffer = 0;
    memset(p->pixel_buffers, 0, sizeof p->pixel_buffers);
    memset(p->pixels, 0, sizeof p->pixels);
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
    /* Mapped for as long as they live, so that the worker needs no GL. */
    const GLbitfield mapping = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    GLsizeiptr size = 4 * (GLsizeiptr)width * height;
    glCreateBuffers(PIXEL_BUFFERS, p->pixel_buffers);
    int mapped = 1;
    for (int i = 0; i < PIXEL_BUFFERS; i++) {
        glNamedBufferStorage(p->pixel_buffers[i], size, NULL, mapping | GL_CLIENT_STORAGE_BIT);
        p->pixels[i] = glMapNamedBufferRange(p->pixel_buffers[i], 0, size, mapping);
        mapped = mapped && p->pixels[i];
    }
    if (glCheckNamedFramebufferStatus(p->framebuffer, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE ||
        !mapped || glGetError() != GL_NO_ERROR) {
        free_gl(p);
        return ds_fail(DS_ERR_GL, "viewer: cannot make a %dx%d framebuffer for the window",
                       width, height);
    }
    return DS_OK;
}

/* ---- the worker ---------------------------------------------------------- */

/* Copies a frame into the image, top row first. */
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

static void put_frame(ds_x11_present *p, const uint8_t *pixels)
{
    /* The shared segment is the server's until it has drawn the last put. */
    if (p->put_pending) {
        XSync(p->display, False);
        p->put_pending = 0;
    }
    copy_rows(p, pixels);
    if (p->shm_attached) {
        XShmPutImage(p->display, p->window, p->gc, p->image, 0, 0, 0, 0, (unsigned)p->width,
                     (unsigned)p->height, False);
        p->put_pending = 1;
    } else {
        XPutImage(p->display, p->window, p->gc, p->image, 0, 0, 0, 0, (unsigned)p->width,
                  (unsigned)p->height);
    }
    XFlush(p->display);
}

/* The worker: puts each frame it is handed until told to quit. The
 * buffer it copies from (putting) is its own until it sets putting back
 * to -1: the GL thread reads no frame into it meanwhile. */
static void *put_frames(void *arg)
{
    ds_x11_present *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->putting < 0 && !p->quit)
            pthread_cond_wait(&p->handed, &p->lock);
        if (p->putting < 0)
            break; /* quit, with no frame left */
        const uint8_t *pixels = p->pixels[p->putting];
        pthread_mutex_unlock(&p->lock);
        put_frame(p, pixels);
        pthread_mutex_lock(&p->lock);
        p->putting = -1;
        pthread_cond_signal(&p->idle);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Waits until the worker has put its frame: then the image, the buffers
 * and the size are the GL thread's alone until the next hand-over. */
static void wait_idle(ds_x11_present *p)
{
    pthread_mutex_lock(&p->lock);
    while (p->putting >= 0)
        pthread_cond_wait(&p->idle, &p->lock);
    pthread_mutex_unlock(&p->lock);
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
    p->fenced = p->putting = -1;
    p->gc = XCreateGC(display, x_window, 0, NULL);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->handed, NULL);
    pthread_cond_init(&p->idle, NULL);
    if (pthread_create(&p->worker, NULL, put_frames, p) != 0) {
        pthread_cond_destroy(&p->idle);
        pthread_cond_destroy(&p->handed);
        pthread_mutex_destroy(&p->lock);
        XFreeGC(display, p->gc);
        free(p);
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "viewer: X11: cannot start the thread that copies "
                       "frames into the window");
    }
    *dest = p;
    return DS_OK;
}

void ds_x11_present_destroy(ds_x11_present *p)
{
    if (!p)
        return;
    /* The worker puts the frame it holds, if any, and ends. */
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_signal(&p->handed);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->worker, NULL);
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->handed);
    pthread_mutex_destroy(&p->lock);
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
    wait_idle(p); /* it reads the buffers, the image and the size */
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
    return DS_OK;
}

unsigned ds_x11_present_framebuffer(const ds_x11_present *p) { return p->framebuffer; }

const char *ds_x11_present_method(const ds_x11_present *p)
{
    return p->can_shm ? "MIT-SHM" : "XPutImage";
}

ds_status ds_x11_present_frame(ds_x11_present *p, int finish_read_back)
{
    if (!p->framebuffer)
        return DS_OK;
    /* This frame goes into a buffer that holds neither the frame before
     * (fenced) nor the worker's (putting; once the worker lets it go it
     * only becomes free, so a stale look errs safe). */
    pthread_mutex_lock(&p->lock);
    int putting = p->putting;
    pthread_mutex_unlock(&p->lock);
    int slot = 0;
    while (slot == p->fenced || slot == putting)
        slot++;
    /* The fence says when the GPU has written it. The pack binding goes
     * back to 0: the renderer's reads into client memory expect none. */
    glBindFramebuffer(GL_READ_FRAMEBUFFER, p->framebuffer);
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, p->pixel_buffers[slot]);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, p->width, p->height, p->read_format, GL_UNSIGNED_BYTE, NULL);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    GLsync previous_fence = p->fence;
    int previous = p->fenced;
    p->fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    p->fenced = slot;
    glFlush();
    /* The read-back moves the frame to host memory over the bus while the
     * next frame runs; a sort that waits for reports from the device on
     * that bus would wait behind it, so for such a sort the read-back
     * ends first (the later wait for this fence then returns at once). */
    if (finish_read_back) {
        GLenum own = glClientWaitSync(p->fence, GL_SYNC_FLUSH_COMMANDS_BIT, READBACK_TIMEOUT_NS);
        if (own != GL_ALREADY_SIGNALED && own != GL_CONDITION_SATISFIED)
            return ds_fail(DS_ERR_GL, "viewer: a frame's read-back for the window did not complete");
    }
    if (!previous_fence)
        return DS_OK; /* the first frame at this size: the window shows it next time */

    /* The frame before: its read-back had this frame's drawing to finish.
     * Once the fence has signalled, the coherent buffer holds its pixels
     * for the CPU; the mutex passes them on to the worker. */
    GLenum waited = glClientWaitSync(previous_fence, GL_SYNC_FLUSH_COMMANDS_BIT,
                                     READBACK_TIMEOUT_NS);
    glDeleteSync(previous_fence);
    if (waited != GL_ALREADY_SIGNALED && waited != GL_CONDITION_SATISFIED)
        return ds_fail(DS_ERR_GL, "viewer: a frame's read-back for the window did not complete");
    pthread_mutex_lock(&p->lock);
    if (p->putting < 0) { /* else dropped: the worker is still putting an older one */
        p->putting = previous;
        pthread_cond_signal(&p->handed);
    }
    pthread_mutex_unlock(&p->lock);
    return DS_OK;
}
