// SPDX-License-Identifier: MIT
/* io_placeholder.c - keeps the io library non-empty until the io lands. */
int prism_io_placeholder_internal(void);
int prism_io_placeholder_internal(void)
{
    return 0;
}
