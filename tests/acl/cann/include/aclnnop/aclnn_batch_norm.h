/*
 * aclnnop/aclnn_batch_norm.h - aclnnBatchNorm, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/81RC1alpha002/apiref/aolapi/context/aclnnBatchNorm.md
 */
#ifndef TNGC_TEST_ACLNN_BATCH_NORM_H
#define TNGC_TEST_ACLNN_BATCH_NORM_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnBatchNormGetWorkspaceSize(
    const aclTensor *input, const aclTensor *weight, const aclTensor *bias, aclTensor
    *runningMean, aclTensor *runningVar, bool training, double momentum, double eps, aclTensor
    *output, aclTensor *saveMean, aclTensor *saveInvstd,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnBatchNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
