/*
 * aclnnop/aclnn_rotary_position_embedding.h - aclnnRotaryPositionEmbedding, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * What it computes: y = x * cos + rotate(x) * sin; mode 0 rotates halves of the last dim, 1
 * interleaved pairs. CANN 8.1.RC1 does not have this operator yet (8.2 on).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1alpha002/API/aolapi/context/aclnnRotaryPositionEmbedding.md
 */
#ifndef TNGC_TEST_ACLNN_ROTARY_POSITION_EMBEDDING_H
#define TNGC_TEST_ACLNN_ROTARY_POSITION_EMBEDDING_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnRotaryPositionEmbeddingGetWorkspaceSize(const aclTensor *x, const aclTensor *cos, const aclTensor *sin, int64_t mode, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnRotaryPositionEmbedding(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
