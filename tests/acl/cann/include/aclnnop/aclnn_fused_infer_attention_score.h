/*
 * aclnnop/aclnn_fused_infer_attention_score.h - aclnnFusedInferAttentionScore,
 * as tngc's generated ACL code calls it (tngc's test declarations, not
 * CANN's header; see acl/acl.h). C++ only, as CANN's aclnnop/ headers are:
 * a C file that includes it does not compile (aclnn/acl_meta.h says why the
 * bundles do not).
 *
 * What it computes: inference attention, softmax(query @ key^T * scale,
 * masked) @ value, for full prompts and single-token decode, with GQA
 * (numKeyValueHeads), per-batch actual lengths (host int arrays), sparse
 * modes, a paged key/value cache (blockTable, blockSize), and optionally
 * the softmax log-sum-exp (softmaxLseFlag). Its launch takes a const stream.
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/80RC3alpha003/apiref/aolapi/context/aclnnFusedInferAttentionScore.md
 */
#ifndef TNGC_TEST_ACLNN_FUSED_INFER_ATTENTION_SCORE_H
#define TNGC_TEST_ACLNN_FUSED_INFER_ATTENTION_SCORE_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnFusedInferAttentionScoreGetWorkspaceSize(const aclTensor *query, const aclTensorList *key,
    const aclTensorList *value, const aclTensor *pseShift, const aclTensor *attenMask,
    const aclIntArray *actualSeqLengths, const aclIntArray *actualSeqLengthsKv, const aclTensor *deqScale1,
    const aclTensor *quantScale1, const aclTensor *deqScale2, const aclTensor *quantScale2,
    const aclTensor *quantOffset2, const aclTensor *antiquantScale, const aclTensor *antiquantOffset,
    const aclTensor *blockTable, const aclTensor *queryPaddingSize, const aclTensor *kvPaddingSize,
    int64_t numHeads, double scaleValue, int64_t preTokens, int64_t nextTokens, char *inputLayout,
    int64_t numKeyValueHeads, int64_t sparseMode, int64_t innerPrecise, int64_t blockSize,
    int64_t antiquantMode, bool softmaxLseFlag, const aclTensor *attentionOut, const aclTensor *softmaxLse,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnFusedInferAttentionScore(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
