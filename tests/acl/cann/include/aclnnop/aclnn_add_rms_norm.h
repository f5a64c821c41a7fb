/*
 * aclnnop/aclnn_add_rms_norm.h - aclnnAddRmsNorm, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * What it computes: x = x1 + x2; rstd = 1 / sqrt(mean(x^2) + epsilon) over gamma's trailing
 * dims; y = x * rstd * gamma (xOut receives x).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha002/API/aolapi/context/aclnnAddRmsNorm.md
 */
#ifndef TNGC_TEST_ACLNN_ADD_RMS_NORM_H
#define TNGC_TEST_ACLNN_ADD_RMS_NORM_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnAddRmsNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma, double epsilon, const aclTensor *yOut,
    const aclTensor *rstdOut, const aclTensor *xOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnAddRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
