/*
 * aclnnop/aclnn_add.h - aclnnAdd, aclnnAdds, as tngc's generated ACL code calls them
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha002/API/aolapi/context/aclnnAdd.md
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha002/API/aolapi/context/aclnnAdds.md
 */
#ifndef TNGC_TEST_ACLNN_ADD_H
#define TNGC_TEST_ACLNN_ADD_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnAdds(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
