/*
 * aclnnop/aclnn_max_pool.h - aclnnMaxPool, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/81RC1alpha002/apiref/aolapi/context/aclnnMaxPool.md
 */
#ifndef TNGC_TEST_ACLNN_MAX_POOL_H
#define TNGC_TEST_ACLNN_MAX_POOL_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnMaxPoolGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *kernelShape, const aclIntArray *strides, const
    int64_t autoPad, const aclIntArray *pads, const aclIntArray *dilations, const int64_t
    ceilMode, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnMaxPool(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
