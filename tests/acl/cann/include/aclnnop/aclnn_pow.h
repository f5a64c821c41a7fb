/*
 * aclnnop/aclnn_pow.h - aclnnPowTensorScalar and aclnnPowScalarTensor, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha002/API/aolapi/context/aclnnPowTensorScalar.md
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha002/API/aolapi/context/aclnnPowScalarTensor.md
 *   (the scalar is the base; the stream is not const in this one)
 */
#ifndef TNGC_TEST_ACLNN_POW_H
#define TNGC_TEST_ACLNN_POW_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnPowTensorScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *exponent, const aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnPowTensorScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
aclnnStatus aclnnPowScalarTensorGetWorkspaceSize(const aclScalar *self, const aclTensor *exponent, const aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnPowScalarTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
