/*
 * aclnnop/aclnn_upsample_nearest_2d_v2.h - aclnnUpsampleNearest2dV2, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/81RC1alpha002/apiref/aolapi/context/aclnnUpsampleNearest2dV2.md
 */
#ifndef TNGC_TEST_ACLNN_UPSAMPLE_NEAREST_2D_V2_H
#define TNGC_TEST_ACLNN_UPSAMPLE_NEAREST_2D_V2_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnUpsampleNearest2dV2GetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, float scalesH, float scalesW,
    aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnUpsampleNearest2dV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
