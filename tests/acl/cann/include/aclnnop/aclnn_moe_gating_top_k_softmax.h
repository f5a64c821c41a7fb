/*
 * aclnnop/aclnn_moe_gating_top_k_softmax.h - aclnnMoeGatingTopKSoftmax, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * What it computes: softmax over the experts (last dim), its top k values and indices
 * (num_expert for finished rows), and the row index of each position.
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha001/API/aolapi/context/aclnnMoeGatingTopKSoftmax.md
 */
#ifndef TNGC_TEST_ACLNN_MOE_GATING_TOP_K_SOFTMAX_H
#define TNGC_TEST_ACLNN_MOE_GATING_TOP_K_SOFTMAX_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnMoeGatingTopKSoftmaxGetWorkspaceSize(const aclTensor *x, const aclTensor *finishedOptional, int64_t k, const aclTensor *yOut,
    const aclTensor *expertIdxOut, const aclTensor *rowIdxOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnMoeGatingTopKSoftmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
