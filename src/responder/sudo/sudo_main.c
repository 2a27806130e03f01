/*
 * sssd_sudo: the SUDO responder. This file starts the process; it joins the bus as
 * sssd.sudo and follows the domain and negative-cache signals every responder listens for.
 */
#include "responder/common/responder_domains.h"

int main(int argc, const char *argv[])
{
    return resp_main(argc, argv, "sudo", NULL);
}
