/*
 * sssd_pam: the PAM responder. This file starts the process; it joins the bus as
 * sssd.pam and follows the domain and negative-cache signals every responder listens for.
 */
#include "responder/common/responder_domains.h"

int main(int argc, const char *argv[])
{
    return resp_main(argc, argv, "pam", NULL);
}
