/*
 * aclnnop/aclnn_quant_matmul_v4.h - aclnnQuantMatmulV4, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha002/API/aolapi/context/aclnnQuantMatmulV4.md
 */
#ifndef TNGC_TEST_ACLNN_QUANT_MATMUL_V4_H
#define TNGC_TEST_ACLNN_QUANT_MATMUL_V4_H

#include <cstdint>
#include <string>   /* as CANN's aclnn_quant_matmul_v4.h does */

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnQuantMatmulV4GetWorkspaceSize(const aclTensor *x1, const aclTensor *x2, const aclTensor *scale, const aclTensor *offset, const aclTensor *pertokenScaleOptional, const aclTensor *bias, bool transposeX1, bool transposeX2, const aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnQuantMatmulV4(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
