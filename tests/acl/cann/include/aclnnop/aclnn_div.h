/*
 * aclnnop/aclnn_div.h - aclnnDiv, aclnnDivs, as tngc's generated ACL code calls them
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha002/API/aolapi/context/aclnnDiv.md
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha002/API/aolapi/context/aclnnDivs.md
 */
#ifndef TNGC_TEST_ACLNN_DIV_H
#define TNGC_TEST_ACLNN_DIV_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnDiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
aclnnStatus aclnnDivsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnDivs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
