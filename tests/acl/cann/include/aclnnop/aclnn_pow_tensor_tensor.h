/*
 * aclnnop/aclnn_pow_tensor_tensor.h - aclnnPowTensorTensor, as tngc's
 * generated ACL code calls it (tngc's test declarations, not CANN's header;
 * see acl/acl.h). C++ only, as CANN's aclnnop/ headers are.
 *
 * From CANN's public aclnn API reference (self ** exponent, broadcast; out
 * is not const here, and neither is the stream):
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha002/API/aolapi/context/aclnnPowTensorTensor.md
 */
#ifndef TNGC_TEST_ACLNN_POW_TENSOR_TENSOR_H
#define TNGC_TEST_ACLNN_POW_TENSOR_TENSOR_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnPowTensorTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *exponent, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnPowTensorTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
