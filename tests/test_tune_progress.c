/* SPDX-License-Identifier: Apache-2.0 */
/* The autotuner's progress line (tools/cli/tune_report.c): nothing when the output is not a
 * terminal; on a pseudo-terminal, one line redrawn in place with a bar, the count and the ETA.
 * CPU only. */
#include <check.h>

#include "test_support.h"
#include "tune.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- tests */

START_TEST(progress_not_a_terminal)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tune_progress(f, 0, 120, 0.0, "start");
    tune_progress(f, 41, 120, 60.0, "mergesort 4/0 256x7");
    tune_progress(f, 120, 120, 200.0, "done");
    ck_assert_int_eq(fflush(f), 0);
    ck_assert_int_eq(ftell(f), 0);
    fclose(f);
}
END_TEST

/* Everything the terminal's other side has received so far. */
static size_t drain(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    while (len + 1 < cap && poll(&pfd, 1, 200) > 0) {
        ssize_t r = read(fd, buf + len, cap - 1 - len);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    buf[len] = '\0';
    return len;
}

START_TEST(progress_on_a_terminal)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        printf("note: no pseudo-terminal here; the terminal progress line is not tested\n");
        if (master >= 0)
            close(master);
        return;
    }
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    ck_assert_int_ge(slave, 0);
    FILE *f = fdopen(slave, "w");
    ck_assert_ptr_nonnull(f);
    char buf[1024];

    /* 41 of 120 after 60 s: 79 more at 60/41 s each is 115.6 s. `what` is cut short. */
    tune_progress(f, 41, 120, 60.0, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaTAIL");
    size_t len = drain(master, buf, sizeof buf);
    ck_assert_msg(strncmp(buf, "\r[######              ] 41/120 points, ETA 1m56s  aaaa", 54) == 0,
                  "got '%s'", buf);
    ck_assert_ptr_null(strstr(buf, "TAIL"));
    ck_assert_uint_eq(len, 100); /* '\r' and a line padded to 99 columns */
    ck_assert_ptr_null(strchr(buf, '\n'));

    tune_progress(f, 0, 120, 0.0, "start");
    drain(master, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "] 0/120 points, ETA --  start"));

    tune_progress(f, 120, 120, 3725.0, "done");
    len = drain(master, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "[####################] 120/120 points, ETA 0s  done"));
    ck_assert_int_eq(buf[len - 1], '\n');

    fclose(f);
    close(master);
}
END_TEST

static Suite *tune_progress_suite(void)
{
    Suite *s = suite_create("tune_progress");
    TCase *tc = tcase_create("reports");
    tcase_add_test(tc, progress_not_a_terminal);
    tcase_add_test(tc, progress_on_a_terminal);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mjt_run(tune_progress_suite(), 1);
}
