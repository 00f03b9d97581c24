/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instruction-mix predictor's coefficients (predictor.c): `set
 * predictor FILE|none` and `get predictor`; each returns an exit code.
 */
#ifndef SBRIDGECTL_PREDICTOR_H
#define SBRIDGECTL_PREDICTOR_H

int sb_predictor_set(const char *arg, const char *help);
int sb_predictor_get(void);

#endif
