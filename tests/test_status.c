/* SPDX-License-Identifier: MIT */
/* test_status.c — the status strings and the one-line error log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "status.h"

static void every_status_has_a_name(void **state)
{
    (void)state;
    for (int s = 0; s < DS_STATUS_COUNT; s++) {
        assert_non_null(ds_status_str((ds_status)s));
        assert_true(strlen(ds_status_str((ds_status)s)) > 0);
    }
    assert_string_equal(ds_status_str((ds_status)-1), "unknown status");
}

static void fail_keeps_the_message_and_returns_the_status(void **state)
{
    (void)state;
    ds_log_set_quiet(1);
    assert_int_equal(ds_fail(DS_ERR_PARSE, "x.ply: line %d: bad", 12),
                     DS_ERR_PARSE);
    assert_string_equal(ds_last_error(), "x.ply: line 12: bad");
    ds_log_set_quiet(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_status_has_a_name),
        cmocka_unit_test(fail_keeps_the_message_and_returns_the_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
