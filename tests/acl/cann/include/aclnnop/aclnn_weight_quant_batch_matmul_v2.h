/*
 * aclnnop/aclnn_weight_quant_batch_matmul_v2.h - aclnnWeightQuantBatchMatmulV2,
 * as tngc's generated ACL code calls it (tngc's test declarations, not
 * CANN's header; see acl/acl.h). C++ only, as CANN's aclnnop/ headers
 * are: a C file that includes it does not compile (aclnn/acl_meta.h says
 * why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/81RC1beta1/API/aolapi/context/aclnnWeightQuantBatchMatmulV2.md
 */
#ifndef TNGC_TEST_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V2_H
#define TNGC_TEST_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V2_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(const aclTensor *x, const aclTensor *weight,
    const aclTensor *antiquantScale, const aclTensor *antiquantOffsetOptional,
    const aclTensor *quantScaleOptional, const aclTensor *quantOffsetOptional, const aclTensor *biasOptional,
    int antiquantGroupSize, const aclTensor *y, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnWeightQuantBatchMatmulV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
