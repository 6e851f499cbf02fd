// SPDX-License-Identifier: MIT
/* main.c - the prism executable: everything lives in prism_app_main(). */
#include "app-internal.h"

int main(int argc, char **argv)
{
    return prism_app_main(argc, argv);
}
