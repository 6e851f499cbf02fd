// SPDX-License-Identifier: MIT
/* search_placeholder.c - keeps the search library non-empty until the search lands. */
int prism_search_placeholder_internal(void);
int prism_search_placeholder_internal(void)
{
    return 0;
}
