/* SPDX-License-Identifier: MIT */
/* test_viewer_script.c — the --script parser: every command, key names,
 * comments and CRLF, and malformed lines rejected with the line named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <GLFW/glfw3.h>

#include "viewer_script.h"
#include "render_types.h"

static ds_status parse(const char *text, ds_script *dest)
{
    return ds_script_parse(text, strlen(text), "run.txt", dest);
}

static void every_command_parses(void **state)
{
    (void)state;
    const char *text =
        "# a comment\n"
        "\n"
        "frames 10\r\n"
        "  key 2\n"
        "key TAB\n"
        "key shift+tab\n"
        "key S\n"
        "drag left 30 -12.5\n"
        "scroll -2\n"
        "screenshot out/one.png\n"
        "drop models/bunny.ply\n"
        "quit";
    ds_script script;
    assert_int_equal(parse(text, &script), DS_OK);
    assert_int_equal(script.count, 10);

    assert_int_equal(script.steps[0].op, DS_SCRIPT_FRAMES);
    assert_int_equal(script.steps[0].count, 10);
    assert_int_equal(script.steps[0].line, 3);

    assert_int_equal(script.steps[1].op, DS_SCRIPT_KEY);
    assert_int_equal(script.steps[1].key, GLFW_KEY_2);
    assert_int_equal(script.steps[1].mods, 0);
    assert_int_equal(script.steps[2].key, GLFW_KEY_TAB);
    assert_int_equal(script.steps[2].mods, 0);
    assert_int_equal(script.steps[3].key, GLFW_KEY_TAB);
    assert_int_equal(script.steps[3].mods, GLFW_MOD_SHIFT);
    assert_int_equal(script.steps[4].key, GLFW_KEY_S);

    assert_int_equal(script.steps[5].op, DS_SCRIPT_DRAG);
    assert_int_equal(script.steps[5].button, GLFW_MOUSE_BUTTON_LEFT);
    assert_true(script.steps[5].dx == 30.0f);
    assert_true(script.steps[5].dy == -12.5f);

    assert_int_equal(script.steps[6].op, DS_SCRIPT_SCROLL);
    assert_true(script.steps[6].dy == -2.0f);

    assert_int_equal(script.steps[7].op, DS_SCRIPT_SCREENSHOT);
    assert_string_equal(script.steps[7].path, "out/one.png");
    assert_int_equal(script.steps[7].line, 10);

    assert_int_equal(script.steps[8].op, DS_SCRIPT_DROP);
    assert_string_equal(script.steps[8].path, "models/bunny.ply");

    assert_int_equal(script.steps[9].op, DS_SCRIPT_QUIT);
    assert_int_equal(script.steps[9].line, 12);
    ds_script_free(&script);
    assert_null(script.steps);
    assert_int_equal(script.count, 0);
}

static void key_names(void **state)
{
    (void)state;
    static const struct { const char *name; int key, mods; } cases[] = {
        {"a", GLFW_KEY_A, 0},
        {"Z", GLFW_KEY_Z, 0},
        {"0", GLFW_KEY_0, 0},
        {"8", GLFW_KEY_8, 0},
        {"+", GLFW_KEY_EQUAL, GLFW_MOD_SHIFT},
        {"plus", GLFW_KEY_EQUAL, GLFW_MOD_SHIFT},
        {"=", GLFW_KEY_EQUAL, 0},
        {"-", GLFW_KEY_MINUS, 0},
        {"kp_add", GLFW_KEY_KP_ADD, 0},
        {"KP_SUBTRACT", GLFW_KEY_KP_SUBTRACT, 0},
        {"esc", GLFW_KEY_ESCAPE, 0},
        {"Escape", GLFW_KEY_ESCAPE, 0},
        {"F1", GLFW_KEY_F1, 0},
        {"f11", GLFW_KEY_F11, 0},
        {"F2", GLFW_KEY_F2, 0},
        {"F3", GLFW_KEY_F3, 0},
        {"F12", GLFW_KEY_F12, 0},
        {"[", GLFW_KEY_LEFT_BRACKET, 0},
        {"]", GLFW_KEY_RIGHT_BRACKET, 0},
        {"left_bracket", GLFW_KEY_LEFT_BRACKET, 0},
        {"RIGHT_BRACKET", GLFW_KEY_RIGHT_BRACKET, 0},
        {"y", GLFW_KEY_Y, 0},
        {"ctrl+shift+c", GLFW_KEY_C, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT},
        {"alt+tab", GLFW_KEY_TAB, GLFW_MOD_ALT},
        {"shift++", GLFW_KEY_EQUAL, GLFW_MOD_SHIFT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int key = -7, mods = -7;
        assert_int_equal(ds_script_key_from_name(cases[i].name, &key, &mods), 0);
        assert_int_equal(key, cases[i].key);
        assert_int_equal(mods, cases[i].mods);
    }
    static const char *const unknown[] = {"", "F0", "F13", "F1x", "ab", "shift+", "!", "ctrl+F99"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        int key, mods;
        assert_int_equal(ds_script_key_from_name(unknown[i], &key, &mods), -1);
    }
}

/* Each malformed script fails with DS_ERR_PARSE and a message naming the
 * line; the output script is left empty. */
static void malformed_lines_are_rejected(void **state)
{
    (void)state;
    static const struct { const char *text; const char *message; } cases[] = {
        {"frames 1\njump 3\n", "run.txt: line 2: unknown command \"jump\""},
        {"frames 0\n", "run.txt: line 1: frame count \"0\" is not in 1..1000000"},
        {"frames -3\n", "run.txt: line 1: frame count \"-3\""},
        {"frames 5x\n", "run.txt: line 1: frame count \"5x\""},
        {"frames 99999999999999999999\n", "run.txt: line 1: frame count"},
        {"frames\n", "run.txt: line 1: \"frames\" takes one count"},
        {"\n\nkey F13\n", "run.txt: line 3: unknown key \"F13\""},
        {"key\n", "run.txt: line 1: \"key\" takes one key name"},
        {"key a b\n", "run.txt: line 1: \"key\" takes one key name"},
        {"drag up 1 2\n", "run.txt: line 1: unknown mouse button \"up\""},
        {"drag left 1\n", "run.txt: line 1: \"drag\" takes"},
        {"drag left 1 nan\n", "run.txt: line 1: drag distances"},
        {"drag left 1e9 0\n", "run.txt: line 1: drag distances"},
        {"scroll\n", "run.txt: line 1: \"scroll\" takes one number"},
        {"scroll inf\n", "run.txt: line 1: \"scroll\" takes one number"},
        {"screenshot\n", "run.txt: line 1: \"screenshot\" takes one path"},
        {"screenshot a b\n", "run.txt: line 1: \"screenshot\" takes one path"},
        {"drop\n", "run.txt: line 1: \"drop\" takes one path"},
        {"drop a b\n", "run.txt: line 1: \"drop\" takes one path"},
        {"quit now\n", "run.txt: line 1: \"quit\" takes nothing"},
        {"key a b c d e\n", "run.txt: line 1: too many words"},
        {"sort\n", "run.txt: line 1: \"sort\" takes one sort name"},
        {"sort fastest\n", "run.txt: line 1: \"sort\" takes one sort name (gl, or one of"},
        {"sort GL\n", "run.txt: line 1: \"sort\" takes one sort name"},
        {"technique painter\n", "run.txt: line 1: \"technique\" takes one of unsorted, sorted, "},
        {"set alpha 0\n", "run.txt: line 1: alpha \"0\" is not in (0, 1]"},
        {"set alpha 1.5\n", "run.txt: line 1: alpha \"1.5\" is not in (0, 1]"},
        {"set alpha\n", "run.txt: line 1: \"set\" takes alpha|color|key|bits and a value"},
        {"set color auto\n", "run.txt: line 1: colour mode \"auto\": normal, tint"},
        {"set key nearest\n", "run.txt: line 1: key \"nearest\": farthest, mean or centroid"},
        {"set bits 20\n", "run.txt: line 1: bits \"20\": 16, 24 or 32"},
        {"set bits 16x\n", "run.txt: line 1: bits \"16x\""},
        {"set speed 3\n", "run.txt: line 1: \"set speed\": alpha, color, key or bits"},
        {"camera\n", "run.txt: line 1: \"camera\" takes \"eye=X,Y,Z target=X,Y,Z"},
        {"camera \"eye=0,0,1 target=0,0,1\"\n", "run.txt: line 1: camera"},
        {"camera \"eye=0,0,1\" x\n", "run.txt: line 1: \"camera\" takes one quoted line"},
        {"orbit 90\n", "run.txt: line 1: \"orbit\" takes DEGREES"},
        {"orbit 90 0\n", "run.txt: line 1: \"orbit\" takes DEGREES"},
        {"orbit x 10\n", "run.txt: line 1: \"orbit\" takes DEGREES"},
        {"wait -1\n", "run.txt: line 1: \"wait\" takes milliseconds"},
        {"wait\n", "run.txt: line 1: \"wait\" takes milliseconds"},
        {"wait file\n", "run.txt: line 1: \"wait\" takes milliseconds, 0 to 600000, or file PATH"},
        {"wait file a b\n", "run.txt: line 1: \"wait\" takes milliseconds"},
        {"stay here\n", "run.txt: line 1: \"stay\" takes nothing"},
        {"report all\n", "run.txt: line 1: \"report\" takes nothing"},
    };
    ds_log_set_quiet(1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ds_script script = {.count = 99};
        assert_int_equal(parse(cases[i].text, &script), DS_ERR_PARSE);
        assert_null(script.steps);
        assert_int_equal(script.count, 0);
        if (strncmp(ds_last_error(), cases[i].message, strlen(cases[i].message)) != 0)
            fail_msg("script %zu: got \"%s\", want \"%s...\"", i, ds_last_error(), cases[i].message);
    }
    ds_log_set_quiet(0);
}

/* The commands beyond keys: their values as the viewer applies them. */
static void settings_commands_parse(void **state)
{
    (void)state;
    static const char text[] =
        "sort gl\n"
        "sort cpu\n"
        "technique wboit\n"
        "set alpha 0.5\n"
        "set color height\n"
        "set key centroid\n"
        "set bits 24\n"
        "  camera \"eye=0,1,4 target=0,0,0 fov=40\"  \n"
        "orbit -90 12\n"
        "wait 250\n"
        "report\n"
        "stay\n"
        "WAIT File /tmp/go-1\n";
    ds_script script;
    assert_int_equal(parse(text, &script), DS_OK);
    assert_int_equal(script.count, 13);
    assert_int_equal(script.steps[0].op, DS_SCRIPT_SORT);
    assert_string_equal(script.steps[0].path, "gl");
    assert_string_equal(script.steps[1].path, "cpu");
    assert_int_equal(script.steps[2].op, DS_SCRIPT_TECHNIQUE);
    assert_int_equal(script.steps[2].count, ds_technique_from_name("wboit"));
    assert_int_equal(script.steps[3].op, DS_SCRIPT_SET);
    assert_int_equal(script.steps[3].setting, DS_SCRIPT_SET_ALPHA);
    assert_true(script.steps[3].dy == 0.5f);
    assert_int_equal(script.steps[4].setting, DS_SCRIPT_SET_COLOR);
    assert_int_equal(script.steps[4].count, DS_COLOR_HEIGHT);
    assert_int_equal(script.steps[5].setting, DS_SCRIPT_SET_KEY);
    assert_int_equal(script.steps[5].count, DS_TRIANGLE_KEY_CENTROID);
    assert_int_equal(script.steps[6].setting, DS_SCRIPT_SET_BITS);
    assert_int_equal(script.steps[6].count, 24);
    assert_int_equal(script.steps[7].op, DS_SCRIPT_CAMERA);
    assert_string_equal(script.steps[7].path, "eye=0,1,4 target=0,0,0 fov=40");
    assert_int_equal(script.steps[7].line, 8);
    assert_int_equal(script.steps[8].op, DS_SCRIPT_ORBIT);
    assert_true(script.steps[8].dx == -90.0f);
    assert_int_equal(script.steps[8].count, 12);
    assert_int_equal(script.steps[9].op, DS_SCRIPT_WAIT);
    assert_true(script.steps[9].dy == 250.0f);
    assert_int_equal(script.steps[10].op, DS_SCRIPT_REPORT);
    assert_int_equal(script.steps[11].op, DS_SCRIPT_STAY);
    assert_int_equal(script.steps[12].op, DS_SCRIPT_WAIT_FILE);
    assert_string_equal(script.steps[12].path, "/tmp/go-1");
    ds_script_free(&script);
}

static void nul_bytes_and_long_lines_are_rejected(void **state)
{
    (void)state;
    ds_script script;
    static const char with_nul[] = "frames 1\nkey\0a\n";
    char *long_line = malloc(DS_SCRIPT_MAX_LINE + 16);
    assert_non_null(long_line);
    memset(long_line, ' ', DS_SCRIPT_MAX_LINE + 8);
    memcpy(long_line + DS_SCRIPT_MAX_LINE, "quit", 4);

    ds_log_set_quiet(1);
    assert_int_equal(ds_script_parse(with_nul, sizeof with_nul - 1, "run.txt", &script), DS_ERR_PARSE);
    assert_string_equal(ds_last_error(), "run.txt: line 2: contains a NUL byte");
    assert_int_equal(ds_script_parse(long_line, DS_SCRIPT_MAX_LINE + 8, "run.txt", &script),
                     DS_ERR_PARSE);
    assert_string_equal(ds_last_error(), "run.txt: line 1: longer than 1024 characters");
    ds_log_set_quiet(0);
    /* Exactly the limit is fine: blanks, then the command. */
    assert_int_equal(ds_script_parse(long_line + 8, DS_SCRIPT_MAX_LINE, "run.txt", &script), DS_OK);
    assert_int_equal(script.count, 1);
    assert_int_equal(script.steps[0].op, DS_SCRIPT_QUIT);
    ds_script_free(&script);
    free(long_line);
}

static void empty_script_is_empty(void **state)
{
    (void)state;
    ds_script script;
    assert_int_equal(ds_script_parse("", 0, "run.txt", &script), DS_OK);
    assert_int_equal(script.count, 0);
    assert_int_equal(parse("# only comments\n   \n\t# more\n", &script), DS_OK);
    assert_int_equal(script.count, 0);
    ds_script_free(&script);
    ds_script_free(NULL);
}

static void many_steps_grow(void **state)
{
    (void)state;
    enum { STEPS = 1000 };
    char *text = malloc(STEPS * 12 + 1);
    size_t length = 0;
    ds_script script;
    assert_non_null(text);
    for (int i = 0; i < STEPS; i++)
        length += (size_t)sprintf(text + length, "frames %d\n", i + 1);
    assert_int_equal(ds_script_parse(text, length, "run.txt", &script), DS_OK);
    assert_int_equal(script.count, STEPS);
    for (int i = 0; i < STEPS; i++)
        assert_int_equal(script.steps[i].count, i + 1);
    ds_script_free(&script);
    free(text);
}

static void load_reads_a_file(void **state)
{
    (void)state;
    char path[] = "/tmp/test_viewer_script_XXXXXX";
    int fd = mkstemp(path);
    ds_script script;
    assert_true(fd >= 0);
    const char *text = "frames 2\nkey 8\nquit\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_int_equal(ds_script_load(path, &script), DS_OK);
    assert_int_equal(script.count, 3);
    assert_int_equal(script.steps[1].key, GLFW_KEY_8);
    ds_script_free(&script);
    unlink(path);

    ds_log_set_quiet(1);
    assert_int_equal(ds_script_load("/nonexistent/run.txt", &script), DS_ERR_IO);
    assert_non_null(strstr(ds_last_error(), "/nonexistent/run.txt: cannot open"));
    ds_log_set_quiet(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_command_parses),
        cmocka_unit_test(key_names),
        cmocka_unit_test(malformed_lines_are_rejected),
        cmocka_unit_test(settings_commands_parse),
        cmocka_unit_test(nul_bytes_and_long_lines_are_rejected),
        cmocka_unit_test(empty_script_is_empty),
        cmocka_unit_test(many_steps_grow),
        cmocka_unit_test(load_reads_a_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
