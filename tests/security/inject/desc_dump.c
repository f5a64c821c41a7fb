/*
 * desc_dump.c - prints the strings of a bundle's descriptor, each as a tag
 * and its bytes in hex, one per line (t_inject.sh compares them with the
 * names of `tngc plan --format json`: what the script said must come back
 * from the compiled C byte for byte). Built with -DDESC=<name>_desc.
 */
#include <stdio.h>

#include "tngrt_bundle.h"

const TngrtBundleDesc *DESC(void);

static void hex(const char *tag, const char *s)
{
    printf("%s ", tag);
    for (; *s; s++)
        printf("%02x", (unsigned char)*s);
    putchar('\n');
}

int main(void)
{
    const TngrtBundleDesc *d = DESC();
    hex("entry", d->entry);
    hex("script", d->script);
    for (int i = 0; i < d->ninputs; i++)
        hex("input", d->inputs[i].name);
    for (int i = 0; i < d->nweights; i++)
        hex("weight", d->weights[i].name);
    for (int i = 0; i < d->noutputs; i++)
        hex("output", d->outputs[i].name);
    for (int i = 0; i < d->nstreams; i++)
        hex("stream", d->stream_names[i]);
    return 0;
}
