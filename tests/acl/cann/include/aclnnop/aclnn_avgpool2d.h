/*
 * aclnnop/aclnn_avgpool2d.h - aclnnAvgPool2d, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/81RC1alpha002/apiref/aolapi/context/aclnnAvgPool2d.md
 */
#ifndef TNGC_TEST_ACLNN_AVGPOOL2D_H
#define TNGC_TEST_ACLNN_AVGPOOL2D_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnAvgPool2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *strides, const
    aclIntArray *paddings, const bool ceilMode, const bool countIncludePad, const int64_t
    divisorOverride, const int8_t cubeMathType, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnAvgPool2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
