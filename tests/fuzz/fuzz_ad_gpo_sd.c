/* libFuzzer harness: arbitrary bytes as a GPO's nTSecurityDescriptor from the directory
 * into ad_gpo_sd_parse() (src/providers/ad/ad_gpo_sd.c: a self-relative security
 * descriptor, its DACL and ACEs), then ad_gpo_sd_applies() for a logon with and without a
 * host SID. Checks that an accepted descriptor's ACE count and trustees are consistent;
 * ASan catches reads past the input (an exact-size copy). Needs
 * src/providers/ad/ad_gpo_sd.c and src/lib/idmap/idmap.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/ad/ad_gpo_sd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *groups[] = { "S-1-5-21-1-2-3-513", "S-1-1-0", NULL };
    struct ad_gpo_sd *sd;
    uint8_t *copy;

    copy = malloc(size > 0 ? size : 1);
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, data, size);
    if (ad_gpo_sd_parse(NULL, copy, size, &sd) == EOK) {
        if (!sd->has_dacl && sd->num_aces != 0) {
            abort();
        }
        for (size_t i = 0; i < sd->num_aces; i++) {
            if (sd->aces[i].trustee != NULL
                    && strncmp(sd->aces[i].trustee, "S-1-", 4) != 0) {
                abort();
            }
        }
        (void)ad_gpo_sd_applies(sd, "S-1-5-21-1-2-3-1105", "S-1-5-21-1-2-3-1300", groups, 2);
        (void)ad_gpo_sd_applies(sd, "S-1-5-21-1-2-3-1105", NULL, NULL, 0);
        talloc_free(sd);
    }
    free(copy);
    return 0;
}
