// SPDX-License-Identifier: MIT
/*
 * fuzz_replay.c - runs every file of the folders (or files) given on the command line
 * through LLVMFuzzerTestOneInput, without libFuzzer, so CTest replays the fuzz corpus in
 * every build (gcc included, and under ASan/UBSan in the sanitizer pass). Fails when no
 * file was run. Also feeds each file truncated at a few lengths, and with its bytes
 * after the middle reversed, to cover the malformed variants of the valid seeds.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t run_file(const char *path)
{
    g_autofree char *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &data, &len, NULL)) {
        fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
        return 0;
    }
    /* Copies without the NUL terminator, so overreads are caught by ASan. */
    size_t runs = 0;
    const size_t cuts[] = {len, len / 2, len / 3, len > 0 ? len - 1 : 0, 1, 0};
    for (size_t i = 0; i < G_N_ELEMENTS(cuts); i++) {
        uint8_t *copy = g_memdup2(data, cuts[i] ? cuts[i] : 1);
        LLVMFuzzerTestOneInput(copy, cuts[i]);
        g_free(copy);
        runs++;
    }
    uint8_t *rev = g_memdup2(data, len ? len : 1);
    for (size_t a = len / 2, b = len ? len - 1 : 0; a < b; a++, b--) {
        uint8_t t = rev[a];
        rev[a] = rev[b];
        rev[b] = t;
    }
    LLVMFuzzerTestOneInput(rev, len);
    g_free(rev);
    return runs + 1;
}

int main(int argc, char **argv)
{
    size_t files = 0, runs = 0;
    for (int i = 1; i < argc; i++) {
        if (g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
            GDir *dir = g_dir_open(argv[i], 0, NULL);
            const char *name;
            while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
                g_autofree char *path = g_build_filename(argv[i], name, NULL);
                if (g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
                    runs += run_file(path);
                    files++;
                }
            }
            if (dir != NULL)
                g_dir_close(dir);
        } else {
            runs += run_file(argv[i]);
            files++;
        }
    }
    printf("fuzz_replay: %zu files, %zu inputs, no crash\n", files, runs);
    return files == 0 ? 1 : 0;
}
