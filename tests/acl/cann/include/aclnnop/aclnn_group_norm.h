/*
 * aclnnop/aclnn_group_norm.h - aclnnGroupNorm, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/81RC1alpha002/apiref/aolapi/context/aclnnGroupNorm.md
 */
#ifndef TNGC_TEST_ACLNN_GROUP_NORM_H
#define TNGC_TEST_ACLNN_GROUP_NORM_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnGroupNormGetWorkspaceSize(
    const aclTensor *self, const aclTensor *gamma, const aclTensor *beta, int64_t N, int64_t C,
    int64_t HxW, int64_t group, double eps, aclTensor *out, aclTensor *meanOut, aclTensor
    *rstdOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnGroupNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
