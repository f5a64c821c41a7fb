/*
 * aclnnop/aclnn_adaptive_avg_pool2d.h - aclnnAdaptiveAvgPool2d, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/81RC1alpha002/apiref/aolapi/context/aclnnAdaptiveAvgPool2d.md
 */
#ifndef TNGC_TEST_ACLNN_ADAPTIVE_AVG_POOL2D_H
#define TNGC_TEST_ACLNN_ADAPTIVE_AVG_POOL2D_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnAdaptiveAvgPool2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnAdaptiveAvgPool2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
