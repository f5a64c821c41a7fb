/*
 * aclnnop/aclnn_moe_gating_top_k.h - aclnnMoeGatingTopK, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * What it computes: sigmoid or softmax of x [tokens, experts] (normType 1 / 0),
 * plus the optional bias; with groupCount > 1 only the kGroup best groups
 * (by max or by the sum of the two largest, groupSelectMode 0 / 1) compete;
 * the k best experts' indices (int32) and their normalised values, divided
 * by their sum + eps (sigmoid) and scaled by routedScalingFactor; outOut
 * holds the normalised x (float32) when outFlag is set. CANN 8.3 and later
 * (not in 8.1.RC1).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1/API/aolapi/context/aclnnMoeGatingTopK.md
 */
#ifndef TNGC_TEST_ACLNN_MOE_GATING_TOP_K_H
#define TNGC_TEST_ACLNN_MOE_GATING_TOP_K_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnMoeGatingTopKGetWorkspaceSize(const aclTensor *x, const aclTensor *biasOptional, int64_t k,
    int64_t kGroup, int64_t groupCount, int64_t groupSelectMode, int64_t renorm, int64_t normType,
    bool outFlag, double routedScalingFactor, double eps, const aclTensor *yOut,
    const aclTensor *expertIdxOut, const aclTensor *outOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnMoeGatingTopK(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
